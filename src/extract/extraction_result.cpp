#include "extract/extraction_result.h"

#include <utility>

#include "extract/cycle_check.h"
#include "support/error.h"

namespace saturate::extract {

namespace {

NodeIndex chosen_node(const std::vector<NodeIndex>& choice, ClassIndex eclass) {
  return eclass < choice.size() ? choice[eclass] : kNoNode;
}

// Classes reachable from the roots through chosen nodes, in visiting order; sets `complete` to
// false when one of them (a root included) has no choice.
std::vector<ClassIndex> reachable_classes(const ExtractionGraph& graph,
                                          const std::vector<NodeIndex>& choice, bool& complete) {
  complete = true;
  std::vector<bool> seen(graph.class_count(), false);
  std::vector<ClassIndex> order;
  for (ClassIndex root : graph.roots) {
    if (seen[root]) continue;
    seen[root] = true;
    order.push_back(root);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const NodeIndex node = chosen_node(choice, order[i]);
    if (node == kNoNode) {
      complete = false;
      continue;
    }
    for (ClassIndex child : graph.nodes[node].children) {
      if (seen[child]) continue;
      seen[child] = true;
      order.push_back(child);
    }
  }
  return order;
}

}  // namespace

double dag_cost(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice) {
  bool complete = true;
  const std::vector<ClassIndex> classes = reachable_classes(graph, choice, complete);
  if (!complete) return ExtractionResult::kInfinity;
  double total = 0;
  for (ClassIndex c : classes) total += graph.nodes[choice[c]].cost;
  return total;
}

double tree_cost(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice) {
  bool complete = true;
  reachable_classes(graph, choice, complete);
  if (!complete || !choice_is_acyclic(graph, choice)) return ExtractionResult::kInfinity;
  // Post-order over the acyclic choice; each class's tree cost once, children by use count.
  std::vector<double> cost(graph.class_count(), -1);
  std::vector<std::pair<ClassIndex, std::size_t>> stack;
  double total = 0;
  for (ClassIndex root : graph.roots) {
    if (cost[root] < 0) stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [eclass, next] = stack.back();
      const auto& node = graph.nodes[choice[eclass]];
      if (next < node.children.size()) {
        const ClassIndex child = node.children[next++];
        if (cost[child] < 0) stack.emplace_back(child, 0);
        continue;
      }
      double sum = node.cost;
      for (ClassIndex child : node.children) sum += cost[child];
      cost[eclass] = sum;
      stack.pop_back();
    }
    total += cost[root];
  }
  return total;
}

ExtractionResult evaluate_choice(const ExtractionGraph& graph, std::vector<NodeIndex> choice) {
  choice.resize(graph.class_count(), kNoNode);
  for (ClassIndex c = 0; c < choice.size(); ++c) {
    const NodeIndex node = choice[c];
    if (node == kNoNode) continue;
    if (node >= graph.node_count() || graph.nodes[node].eclass != c) {
      throw Error("extraction chose a node that is not in class '" + graph.class_ids[c] + "'");
    }
  }
  ExtractionResult result;
  bool complete = true;
  const std::vector<ClassIndex> reachable = reachable_classes(graph, choice, complete);
  result.choice.assign(graph.class_count(), kNoNode);
  for (ClassIndex c : reachable) result.choice[c] = choice[c];
  result.found = complete;
  result.acyclic = choice_is_acyclic(graph, result.choice);
  result.dag_cost = dag_cost(graph, result.choice);
  result.tree_cost = tree_cost(graph, result.choice);
  return result;
}

}  // namespace saturate::extract
