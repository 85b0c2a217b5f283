#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "search/exact_cost.h"

namespace saturate::search {

// A graph waiting to be expanded.
struct Candidate {
  ir::Graph graph;
  ExactCost cost = 0;
  std::vector<uint32_t> path;  // rule indices applied, in order, from the input
};

// Candidates by cost, cheapest first. Equal costs come out in the order they went in (TASO's
// std::priority_queue leaves ties unspecified; a fixed order keeps runs reproducible).
class CandidateQueue {
 public:
  void push(Candidate candidate);
  // The cheapest candidate; the queue must not be empty.
  Candidate pop();
  // Drops all but the `keep` cheapest. With n expansions left only the n cheapest candidates
  // can ever be taken off (each later one has n cheaper ones ahead of it, and candidates added
  // later only push it further back), so trimming to n changes nothing but memory.
  void trim(size_t keep);
  // Whether a candidate of this cost pushed now would survive trim(keep).
  bool would_keep(ExactCost cost, size_t keep) const;

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::pair<ExactCost, uint64_t>, Candidate> entries_;  // (cost, arrival) -> candidate
  uint64_t arrivals_ = 0;
};

}  // namespace saturate::search
