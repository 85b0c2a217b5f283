#include "cost/one_node_graph.h"

namespace saturate::cost {

bool is_parameter_input(ir::OpKind op, size_t input) {
  switch (op) {
    case ir::OpKind::Conv2d:
    case ir::OpKind::BiasGelu:
      return input == 1;
    case ir::OpKind::FusedConv:  // the weight and the bias; a residual sum is an activation
      return input == 1 || input == 2;
    case ir::OpKind::BatchNorm:
    case ir::OpKind::LayerNorm:
    case ir::OpKind::RMSNorm:
      return input >= 1;
    case ir::OpKind::SkipLayerNorm:
    case ir::OpKind::SkipRMSNorm:
      return input >= 2;
    case ir::OpKind::RotaryEmbedding:  // the position tables: constants of the model
      return input >= 1;
    case ir::OpKind::QkvAttention:  // the packed weight and bias (prepacked by the kernel)
      return input == 1 || input == 2;
    default:
      return false;
  }
}

ir::Graph one_node_graph(const OwnedOpConfig& config) {
  // A timer allocates and runs this graph: its shapes must be sizes.
  require_concrete_shapes(config.view(), "an operator timer");
  ir::Graph graph("op");
  std::vector<ir::ValueRef> inputs;
  for (size_t i = 0; i < config.inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    const ir::TensorType& type = config.inputs[i];
    inputs.push_back(is_parameter_input(config.op, i)
                         ? graph.add_weight(name, type.dims, type.dtype)
                         : graph.add_input(name, type.dims, type.dtype));
  }
  const ir::NodeId node = graph.add_node(config.op, inputs, config.attrs);
  for (size_t k = 0; k < graph.node(node).outputs.size(); ++k) {
    graph.add_output("out" + std::to_string(k), {node, static_cast<uint32_t>(k)});
  }
  return graph;
}

}  // namespace saturate::cost
