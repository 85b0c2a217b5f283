#include "extract/bottom_up_extractor.h"

#include <chrono>
#include <deque>
#include <vector>

#include "extract/extraction_index.h"

namespace saturate::extract {

ExtractionResult BottomUpExtractor::extract(const ExtractionGraph& graph,
                                            const ExtractOptions& /*options*/) const {
  const auto start = std::chrono::steady_clock::now();
  const ParentIndex parents(graph);
  std::vector<double> best_cost(graph.class_count(), ExtractionResult::kInfinity);
  std::vector<NodeIndex> choice(graph.class_count(), kNoNode);

  // A worklist of nodes to (re)evaluate: every node once, then the parents of each class whose
  // best cost drops.
  std::deque<NodeIndex> pending;
  std::vector<bool> queued(graph.node_count(), false);
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    if (graph.is_filtered(n)) continue;
    pending.push_back(n);
    queued[n] = true;
  }
  std::size_t evaluations = 0;
  while (!pending.empty()) {
    const NodeIndex n = pending.front();
    pending.pop_front();
    queued[n] = false;
    ++evaluations;
    const auto& node = graph.nodes[n];
    double cost = node.cost;
    bool children_chosen = true;
    for (ClassIndex child : node.children) {
      cost += best_cost[child];
      children_chosen = children_chosen && choice[child] != kNoNode;
    }
    if (!children_chosen) continue;
    // The first choice of a class is taken even when its cost overflowed to infinity, so huge
    // tree costs still give an extraction.
    const bool improves =
        cost < best_cost[node.eclass] || (choice[node.eclass] == kNoNode && cost == cost);
    if (!improves) continue;
    best_cost[node.eclass] = cost;
    choice[node.eclass] = n;
    for (NodeIndex parent : parents.of(node.eclass)) {
      if (queued[parent]) continue;
      queued[parent] = true;
      pending.push_back(parent);
    }
  }

  ExtractionResult result = evaluate_choice(graph, std::move(choice));
  result.method = name();
  result.status = result.found ? "heuristic" : "no extraction";
  result.add_statistic("node evaluations", static_cast<double>(evaluations));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace saturate::extract
