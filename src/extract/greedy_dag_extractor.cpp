#include "extract/greedy_dag_extractor.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "extract/bottom_up_extractor.h"
#include "extract/extraction_index.h"
#include "extract/reuse_improvement.h"

namespace saturate::extract {

namespace {

// The classes a choice needs, sorted by class, each with the cost of its node when the set was
// built, and their sum.
struct CostSet {
  std::vector<std::pair<ClassIndex, double>> members;
  double total = ExtractionResult::kInfinity;
};

bool contains(const CostSet& set, ClassIndex eclass) {
  auto it = std::lower_bound(set.members.begin(), set.members.end(), eclass,
                             [](const auto& member, ClassIndex c) { return member.first < c; });
  return it != set.members.end() && it->first == eclass;
}

// Unions the sets of `children` (sorted, distinct) into one set; on a class present in several
// sets the first one's cost is kept (sets are snapshots and may disagree).
std::vector<std::pair<ClassIndex, double>> union_of(const std::vector<CostSet>& sets,
                                                    const std::vector<ClassIndex>& children) {
  // Start from the largest set: the others are usually mostly inside it.
  ClassIndex largest = children.front();
  for (ClassIndex child : children) {
    if (sets[child].members.size() > sets[largest].members.size()) largest = child;
  }
  std::vector<std::pair<ClassIndex, double>> merged = sets[largest].members;
  std::vector<std::pair<ClassIndex, double>> scratch;
  auto by_class = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (ClassIndex child : children) {
    if (child == largest) continue;
    scratch.clear();
    std::set_union(merged.begin(), merged.end(), sets[child].members.begin(),
                   sets[child].members.end(), std::back_inserter(scratch), by_class);
    merged.swap(scratch);
  }
  return merged;
}

// The sets together hold at most this many entries (320 MB): on a deep e-graph each class's set
// holds every class below it, so they grow with the square of the depth (a chain of 100,000
// operators: 5 x 10^9 entries). Past it, and past the deadline, the bottom-up choice is taken.
constexpr std::size_t kMaxSetEntries = 20'000'000;

}  // namespace

ExtractionResult GreedyDagExtractor::extract(const ExtractionGraph& graph,
                                             const ExtractOptions& options) const {
  const auto start = std::chrono::steady_clock::now();
  const ParentIndex parents(graph);
  std::vector<std::vector<ClassIndex>> children(graph.node_count());
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    children[n] = distinct_children(graph.nodes[n]);
  }

  std::vector<CostSet> sets(graph.class_count());
  std::vector<NodeIndex> choice(graph.class_count(), kNoNode);

  // Cheapest nodes first, starting from the leaves; a node enters the queue once all its child
  // classes have a set, and again whenever one of them improves.
  using Entry = std::pair<double, NodeIndex>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> pending;
  std::vector<bool> queued(graph.node_count(), false);
  auto enqueue = [&](NodeIndex n) {
    if (queued[n] || graph.is_filtered(n)) return;
    queued[n] = true;
    pending.emplace(graph.nodes[n].cost, n);
  };
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    if (children[n].empty()) enqueue(n);
  }

  std::size_t evaluations = 0;
  std::size_t entries = 0;
  std::string gave_up;
  while (!pending.empty()) {
    if (entries > kMaxSetEntries) {
      gave_up = "its class sets passed " + std::to_string(kMaxSetEntries) + " entries";
      break;
    }
    if ((evaluations & 1023) == 0 && options.deadline.expired()) {
      gave_up = "the deadline passed";
      break;
    }
    const NodeIndex n = pending.top().second;
    pending.pop();
    queued[n] = false;
    ++evaluations;
    const auto& node = graph.nodes[n];
    const ClassIndex eclass = node.eclass;
    const double best = sets[eclass].total;

    CostSet candidate;
    if (children[n].empty()) {
      candidate.members = {{eclass, node.cost}};
    } else {
      const auto& kids = children[n];
      if (std::binary_search(kids.begin(), kids.end(), eclass)) continue;  // self loop
      if (kids.size() == 1 && node.cost + sets[kids[0]].total >= best) continue;
      candidate.members = union_of(sets, kids);
      if (contains(candidate, eclass)) continue;  // would need its own class: a cycle
      auto at = std::lower_bound(candidate.members.begin(), candidate.members.end(), eclass,
                                 [](const auto& member, ClassIndex c) { return member.first < c; });
      candidate.members.insert(at, {eclass, node.cost});
    }
    candidate.total = 0;
    for (const auto& member : candidate.members) candidate.total += member.second;
    if (!(candidate.total < best)) continue;

    entries += candidate.members.size();
    entries -= sets[eclass].members.size();
    sets[eclass] = std::move(candidate);
    choice[eclass] = n;
    for (NodeIndex parent : parents.of(eclass)) {
      const bool ready = std::all_of(children[parent].begin(), children[parent].end(),
                                     [&](ClassIndex c) { return choice[c] != kNoNode; });
      if (ready) enqueue(parent);
    }
  }

  if (!gave_up.empty()) {
    sets.clear();
    sets.shrink_to_fit();
    ExtractionResult fallback = BottomUpExtractor().extract(graph, options);
    fallback.status = "heuristic (bottom-up: greedy DAG stopped, " + gave_up + ")";
    fallback.method = name();
    fallback.add_statistic("node evaluations", static_cast<double>(evaluations));
    fallback.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return fallback;
  }
  ExtractionResult result = evaluate_choice(graph, std::move(choice));
  result.status = result.found ? "heuristic" : "no extraction";
  if (!result.found || !result.acyclic) {
    // Sets are snapshots: a class can keep a node whose child later came to need it (a cycle),
    // or reject every node because a child's set already holds the class while another choice
    // of that child would not. Bottom-up greedy finds an acyclic choice whenever one exists, so
    // fall back to it rather than return an invalid or missing extraction.
    ExtractionResult fallback = BottomUpExtractor().extract(graph, options);
    if (fallback.found && fallback.acyclic) {
      fallback.status = result.found
                            ? "heuristic (bottom-up fallback: the greedy DAG choice had a cycle)"
                            : "heuristic (bottom-up fallback: greedy DAG found no choice)";
      result = std::move(fallback);
    }
  }
  if (result.found && result.acyclic) {
    std::vector<NodeIndex> improved = result.choice;
    const std::size_t switches = improve_by_reuse(graph, improved, options.deadline);
    if (switches > 0) {
      const std::string status = result.status;
      result = evaluate_choice(graph, std::move(improved));
      result.status = status;
    }
    result.add_statistic("reuse switches", static_cast<double>(switches));
  }
  result.method = name();
  result.add_statistic("node evaluations", static_cast<double>(evaluations));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace saturate::extract
