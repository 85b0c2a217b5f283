#include "driver/session_fusion_guard.h"

#include <map>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"

namespace saturate::driver {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueRef;

// How many nodes and graph outputs read each value.
std::vector<std::vector<size_t>> count_readers(const ir::Graph& graph) {
  std::vector<std::vector<size_t>> readers(graph.num_nodes());
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    readers[id].assign(graph.node(id).outputs.size(), 0);
  }
  for (const ir::Node& node : graph.nodes()) {
    for (const ValueRef& input : node.inputs) ++readers[input.node][input.output];
  }
  for (const ir::GraphOutput& output : graph.outputs()) {
    ++readers[output.value.node][output.value.output];
  }
  return readers;
}

// The residual sum a layernorm reads, when ONNX Runtime's SkipLayerNormFusion would fuse the
// two: an Add of two float32 3-d tensors of one shape, read by the norm alone, over the last
// axis (the fusion itself does not check the axis; the 2-d spelling is exact only for it).
const ir::Node* fusable_sum(const ir::Graph& graph, const ir::Node& norm,
                            const std::vector<std::vector<size_t>>& readers) {
  const ValueRef input = norm.inputs[0];
  const ir::Node& sum = graph.node(input.node);
  if (sum.op != OpKind::Add && sum.op != OpKind::EwAdd) return nullptr;
  const ir::TensorType& a = graph.type(sum.inputs[0]);
  const ir::TensorType& b = graph.type(sum.inputs[1]);
  if (a.rank() != 3 || a != b || a.dtype != ir::DType::F32) return nullptr;
  // Graph outputs count as readers, so one reader is the norm and the sum is no graph output.
  if (readers[input.node][input.output] != 1) return nullptr;
  const int64_t axis = norm.attrs.get_int("axis");
  if (axis != -1 && axis != 2) return nullptr;
  return &sum;
}

struct Prices {
  double fused = 0;
  double unfused = 0;
};

Prices price(const ir::Graph& graph, const ir::Node& sum, const ir::Node& norm,
             const std::vector<ir::TensorType>& norm_inputs, const cost::CostModel& model) {
  const ir::TensorType& x = graph.type(sum.inputs[0]);
  const std::vector<ir::TensorType> fused_inputs{x, x, graph.type(norm.inputs[1]),
                                                 graph.type(norm.inputs[2])};
  const ir::Attributes fused_attrs = ir::complete_attributes(
      ir::op_info(OpKind::SkipLayerNorm), {{"epsilon", norm.attrs.get_float("epsilon")}});
  const std::vector<ir::TensorType> fused_outputs =
      ir::infer_types(OpKind::SkipLayerNorm, fused_inputs, fused_attrs);
  std::vector<ir::TensorType> sum_inputs{x, x};
  Prices prices;
  prices.fused = model.op_cost(
      cost::OpConfig{OpKind::SkipLayerNorm, fused_attrs, fused_inputs, fused_outputs});
  prices.unfused = model.op_cost(cost::OpConfig{sum.op, sum.attrs, sum_inputs, sum.outputs}) +
                   model.op_cost(cost::OpConfig{norm.op, norm.attrs, norm_inputs, norm.outputs});
  return prices;
}

// The graph again, with each norm in `guarded` written on the 2-d view of its input:
// reshape (B, S, D) -> (B * S, D), the norm, reshape back under the norm's own name.
ir::Graph respell(const ir::Graph& graph, const std::vector<bool>& guarded) {
  ir::Graph copy(graph.name());
  std::vector<std::vector<ValueRef>> values(graph.num_nodes());
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    std::vector<ValueRef> inputs;
    for (const ValueRef& input : node.inputs) inputs.push_back(values[input.node][input.output]);
    if (!guarded[id]) {
      NodeId added = copy.add_node(node.op, inputs, node.attrs, node.output_names);
      for (uint32_t k = 0; k < node.outputs.size(); ++k) values[id].push_back({added, k});
      continue;
    }
    const ir::Dims& dims = node.outputs[0].dims;
    const ir::Dims rows{ir::dim_product(dims[0], dims[1]), dims[2]};
    const std::string& name = node.name();
    NodeId flat = copy.add_node(OpKind::Reshape, {inputs[0]}, {{"shape", rows}},
                                {copy.fresh_name(name + "_rows_in")});
    ir::Attributes attrs = node.attrs;
    attrs.set("axis", int64_t{-1});
    inputs[0] = {flat, 0};
    NodeId norm = copy.add_node(node.op, inputs, attrs, {copy.fresh_name(name + "_rows")});
    NodeId back = copy.add_node(OpKind::Reshape, {{norm, 0}}, {{"shape", dims}}, {name});
    values[id].push_back({back, 0});
  }
  for (const ir::GraphOutput& output : graph.outputs()) {
    copy.add_output(output.name, values[output.value.node][output.value.output]);
  }
  return copy;
}

}  // namespace

nlohmann::ordered_json SessionFusionGuards::to_json() const {
  return {{"fusion", "SkipLayerNormFusion"},
          {"candidates", candidates},
          {"guarded", guarded},
          {"prices", prices}};
}

SessionFusionGuards guard_session_fusions(ir::Graph& graph, const cost::CostModel& model) {
  SessionFusionGuards result;
  const std::vector<std::vector<size_t>> readers = count_readers(graph);
  std::vector<bool> guarded(graph.num_nodes(), false);
  std::map<std::string, Prices> priced;  // by configuration text
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& norm = graph.node(id);
    if (norm.op != OpKind::LayerNorm) continue;
    const ir::Node* sum = fusable_sum(graph, norm, readers);
    if (sum == nullptr) continue;
    ++result.candidates;
    std::vector<ir::TensorType> norm_inputs;
    for (const ValueRef& input : norm.inputs) norm_inputs.push_back(graph.type(input));
    const std::string key =
        cost::describe(cost::OpConfig{norm.op, norm.attrs, norm_inputs, norm.outputs});
    auto found = priced.find(key);
    if (found == priced.end()) {
      found = priced.emplace(key, price(graph, *sum, norm, norm_inputs, model)).first;
      result.prices.push_back({{"configuration", key},
                               {"skip_layer_norm_ms", found->second.fused},
                               {"add_and_layernorm_ms", found->second.unfused}});
    }
    if (found->second.fused > found->second.unfused) {
      guarded[id] = true;
      ++result.guarded;
    }
  }
  if (result.guarded > 0) graph = respell(graph, guarded);
  return result;
}

}  // namespace saturate::driver
