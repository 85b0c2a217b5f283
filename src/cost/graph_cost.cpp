#include "cost/graph_cost.h"

#include "ir/op_registry.h"
#include "ir/weight_only.h"

namespace saturate::cost {

std::vector<ir::TensorType> input_types(const ir::Graph& graph, ir::NodeId id) {
  std::vector<ir::TensorType> types;
  for (const ir::ValueRef& input : graph.node(id).inputs) types.push_back(graph.type(input));
  return types;
}

GraphCost graph_cost(const ir::Graph& graph, const CostModel& model) {
  const std::vector<bool> known = ir::weight_only_nodes(graph);
  GraphCost cost;
  cost.per_node.assign(graph.num_nodes(), 0.0);
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    // Noop only ties values to the e-graph's single root; no kernel ever runs for it, so no
    // model (analytic or measured) is asked to price it.
    if (ir::op_info(node.op).is_leaf() || node.op == ir::OpKind::Noop) continue;
    if (known[id]) {
      ++cost.folded_operators;  // computed once at compile time, like TASO's weight preprocessing
      continue;
    }
    const std::vector<ir::TensorType> inputs = input_types(graph, id);
    const double node_cost = model.op_cost({node.op, node.attrs, inputs, node.outputs});
    cost.per_node[id] = node_cost;
    cost.total += node_cost;
  }
  return cost;
}

}  // namespace saturate::cost
