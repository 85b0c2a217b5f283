#include "search/candidate_queue.h"

#include <iterator>

#include "support/error.h"

namespace saturate::search {

void CandidateQueue::push(Candidate candidate) {
  ExactCost cost = candidate.cost;
  entries_.emplace(std::make_pair(cost, arrivals_++), std::move(candidate));
}

Candidate CandidateQueue::pop() {
  if (entries_.empty()) throw Error("internal: pop from an empty candidate queue");
  Candidate candidate = std::move(entries_.begin()->second);
  entries_.erase(entries_.begin());
  return candidate;
}

void CandidateQueue::trim(size_t keep) {
  while (entries_.size() > keep) entries_.erase(std::prev(entries_.end()));
}

bool CandidateQueue::would_keep(ExactCost cost, size_t keep) const {
  if (entries_.size() < keep) return true;
  // An equal cost queues behind the last one, so it must be strictly cheaper.
  return keep > 0 && cost < std::prev(entries_.end())->first.first;
}

}  // namespace saturate::search
