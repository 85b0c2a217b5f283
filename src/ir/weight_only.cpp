#include "ir/weight_only.h"

namespace saturate::ir {

std::vector<bool> weight_only_nodes(const Graph& graph) {
  std::vector<bool> known(graph.num_nodes(), false);
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    switch (node.op) {
      case OpKind::Weight:
      case OpKind::Constant:
        known[id] = true;
        break;
      case OpKind::Input:
      case OpKind::Opaque:
        break;
      default: {
        // Nodes are in topological order, so every input's entry is already final.
        bool all_known = !node.inputs.empty();
        for (const ValueRef& input : node.inputs) all_known = all_known && known[input.node];
        known[id] = all_known;
      }
    }
  }
  return known;
}

}  // namespace saturate::ir
