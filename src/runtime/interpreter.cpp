// The reference interpreter: feeds the leaves, runs each node's kernel in topological order and
// rounds results to float32 when asked.
#include "runtime/interpreter.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "runtime/index_math.h"
#include "runtime/kernels.h"
#include "support/error.h"

namespace saturate::runtime {
namespace {

using ir::OpKind;

std::string describe(const ir::Node& node) {
  return "node '" + node.name() + "' (" + std::string(ir::to_string(node.op)) + ")";
}

// The first integer attribute of a node holding a symbolic dim (a reshape's target shape).
const std::string* symbolic_attribute(const ir::Node& node) {
  for (const auto& [name, value] : node.attrs.entries()) {
    if (const auto* number = std::get_if<int64_t>(&value); number && ir::is_symbolic(*number)) {
      return &name;
    }
    if (const auto* numbers = std::get_if<std::vector<int64_t>>(&value);
        numbers && ir::has_symbolic(*numbers)) {
      return &name;
    }
  }
  return nullptr;
}

// Why a node cannot run at all: a symbolic output shape or attribute; nullopt when it can.
std::optional<std::string> symbolic_problem(const ir::Node& node) {
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (ir::has_symbolic(node.outputs[k].dims)) {
      const std::string& name =
          k < node.output_names.size() ? node.output_names[k] : node.output_names.front();
      return "value '" + name + "' (" + std::string(ir::to_string(node.op)) +
             ") has the symbolic shape " + ir::to_string(node.outputs[k]);
    }
  }
  if (const std::string* attribute = symbolic_attribute(node)) {
    return describe(node) + " has a symbolic attribute " + *attribute;
  }
  return std::nullopt;
}

// `what` names the graph ("graph 'g'"), or is empty for one node (the problem names it).
[[noreturn]] void refuse_symbolic(std::string_view runner, const std::string& what,
                                  const std::string& problem) {
  throw Error(std::string(runner) + (what.empty() ? "" : " cannot run " + what) + ": " + problem +
              "; it runs sizes only, so bind the symbols to sizes first (a shape profile, e.g. "
              "batch=1,sequence=128)");
}

// Rounds to float32, or to the 16-bit type a float16 or bfloat16 value has.
void round_to_element_type(Tensor& t, ir::DType dtype) {
  if (dtype == ir::DType::F16 || dtype == ir::DType::BF16) {
    for (double& v : t.data) v = ir::round_to_precision(v, dtype);
    return;
  }
  for (double& v : t.data) v = static_cast<float>(v);
}

// The inputs must have the shapes the node was built for: re-running shape inference on them
// and comparing with the node's recorded outputs catches any mismatch before a kernel indexes
// out of bounds.
void check_inputs(const ir::Node& node, const std::vector<const Tensor*>& inputs) {
  std::vector<ir::TensorType> types;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor* t = inputs[i];
    if (t == nullptr) throw Error(describe(node) + ": input " + std::to_string(i) + " is null");
    if (static_cast<int64_t>(t->data.size()) != detail::product(t->dims)) {
      throw Error(describe(node) + ": input " + std::to_string(i) + " of shape " +
                  ir::to_string(t->dims) + " holds " + std::to_string(t->data.size()) + " values");
    }
    types.push_back({node.outputs.front().dtype, t->dims});
  }
  std::vector<ir::TensorType> inferred;
  try {
    inferred = ir::infer_types(node.op, types, node.attrs);
  } catch (const Error& error) {
    throw Error(describe(node) + ": " + error.what());
  }
  bool same = inferred.size() == node.outputs.size();
  for (size_t k = 0; same && k < inferred.size(); ++k) {
    same = inferred[k].dims == node.outputs[k].dims;
  }
  if (!same) {
    std::string shapes;
    for (const Tensor* t : inputs) shapes += (shapes.empty() ? "" : ", ") + ir::to_string(t->dims);
    throw Error(describe(node) + ": inputs of shapes " + shapes +
                " do not give the output shape the node was built with, " +
                ir::to_string(node.outputs.front().dims));
  }
}

kernels::Window window_of(const ir::Attributes& attrs, bool with_kernel) {
  kernels::Window window;
  if (with_kernel) {
    window.kernel_h = attrs.get_int("kernel_h");
    window.kernel_w = attrs.get_int("kernel_w");
  }
  window.stride_h = attrs.get_int("stride_h");
  window.stride_w = attrs.get_int("stride_w");
  window.padding = attrs.get_padding();
  return window;
}

// One operator in double precision. `in` has been checked against the node's types.
std::vector<Tensor> compute(const ir::Node& node, const std::vector<const Tensor*>& in) {
  const ir::Attributes& attrs = node.attrs;
  const ir::Dims& out_dims = node.outputs.front().dims;
  switch (node.op) {
    case OpKind::Input:
    case OpKind::Weight:
      throw Error(describe(node) + " is a leaf: its value comes from the feeds");
    case OpKind::Constant:
      return {Tensor(out_dims, attrs.get_float("value"))};
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Div:
    case OpKind::Pow:
      return {kernels::binary(node.op, *in[0], *in[1], out_dims)};
    case OpKind::MatMul: {
      Tensor out = kernels::matmul(*in[0], *in[1], out_dims);
      kernels::activate(out, {attrs.get_activation()});
      return {std::move(out)};
    }
    case OpKind::Conv2d: {
      Tensor out = kernels::conv2d(*in[0], *in[1], window_of(attrs, false), out_dims);
      kernels::activate(out, {attrs.get_activation()});
      return {std::move(out)};
    }
    case OpKind::FusedMatMul:
      return {kernels::fused_matmul(*in[0], *in[1], attrs.get_float("alpha"),
                                    attrs.get_int("trans_a") == 1, attrs.get_int("trans_b") == 1,
                                    out_dims)};
    case OpKind::FusedConv: {
      kernels::FusedActivation activation{attrs.get_activation(),
                                          attrs.get_float("activation_alpha"),
                                          attrs.get_float("activation_beta")};
      return {kernels::fused_conv(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr,
                                  window_of(attrs, false), activation, out_dims)};
    }
    case OpKind::PoolMax:
    case OpKind::PoolAvg: {
      kernels::Window window = window_of(attrs, true);
      Tensor out = node.op == OpKind::PoolMax ? kernels::pool_max(*in[0], window, out_dims)
                                              : kernels::pool_avg(*in[0], window, out_dims);
      kernels::activate(out, {attrs.get_activation()});
      return {std::move(out)};
    }
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Sqrt:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Gelu:
    case OpKind::FastGelu:
      return {kernels::unary(node.op, *in[0])};
    case OpKind::BiasGelu:
      return {kernels::bias_gelu(*in[0], *in[1])};
    case OpKind::QuickGelu:
      return {kernels::quick_gelu(*in[0], attrs.get_float("alpha"))};
    case OpKind::Clip:
      return {kernels::activated(
          *in[0], {ir::Activation::Clip, attrs.get_float("min"), attrs.get_float("max")})};
    case OpKind::LeakyRelu:
      return {kernels::activated(*in[0], {ir::Activation::LeakyRelu, attrs.get_float("alpha")})};
    case OpKind::HardSigmoid:
      return {kernels::activated(*in[0], {ir::Activation::HardSigmoid, attrs.get_float("alpha"),
                                          attrs.get_float("beta")})};
    case OpKind::Transpose:
      return {kernels::transpose(*in[0], attrs.get_ints("perm"))};
    case OpKind::Enlarge:
      return {kernels::enlarge(*in[0], out_dims)};
    case OpKind::Concat:
      return {kernels::concat(in, attrs.get_int("axis"))};
    case OpKind::Split:
      return kernels::split(*in[0], attrs.get_int("axis"), attrs.get_ints("sizes"));
    case OpKind::Merge:
      return {kernels::merge(*in[0], attrs.get_int("count"))};
    case OpKind::Reshape:
      return {kernels::reshape(*in[0], out_dims)};
    case OpKind::BatchNorm:
      return {
          kernels::batchnorm(*in[0], *in[1], *in[2], *in[3], *in[4], attrs.get_float("epsilon"))};
    case OpKind::Noop:
      return {*in[0]};
    case OpKind::Softmax:
      return {kernels::softmax(*in[0], attrs.get_int("axis"))};
    case OpKind::LayerNorm:
      return {kernels::layernorm(*in[0], *in[1], *in[2], attrs.get_int("axis"),
                                 attrs.get_float("epsilon"))};
    case OpKind::RMSNorm:
      return {kernels::rms_norm(*in[0], *in[1], attrs.get_int("axis"), attrs.get_float("epsilon"))};
    case OpKind::SkipLayerNorm:
      return kernels::skip_layer_norm(*in[0], *in[1], *in[2], *in[3], attrs.get_float("epsilon"));
    case OpKind::SkipRMSNorm:
      return kernels::skip_rms_norm(*in[0], *in[1], *in[2], attrs.get_float("epsilon"));
    case OpKind::ReduceMean:
      return {kernels::reduce_mean(*in[0], attrs.get_ints("axes"), out_dims)};
    case OpKind::Attention:
      return {kernels::attention(*in[0], *in[1], *in[2], attrs.get_float("scale"), out_dims)};
    case OpKind::MultiHeadAttention:
      return {kernels::multi_head_attention(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr,
                                            attrs.get_int("num_heads"), attrs.get_float("scale"))};
    case OpKind::QkvAttention:
      return {kernels::qkv_attention(*in[0], *in[1], *in[2], in.size() > 3 ? in[3] : nullptr,
                                     attrs.get_int("num_heads"), attrs.get_float("scale"))};
    case OpKind::RotaryEmbedding:
      return {kernels::rotary_embedding(*in[0], *in[1], *in[2])};
    case OpKind::Slice:
      return {kernels::slice(*in[0], attrs.get_int("axis"), attrs.get_int("start"),
                             attrs.get_int("end"))};
    case OpKind::Pad:
      return {kernels::pad(*in[0], attrs.get_ints("pads"), out_dims)};
    case OpKind::Opaque:
      throw Error("cannot evaluate opaque ONNX operator " + attrs.get_string("op_type") +
                  " (node '" + node.name() + "') in the reference interpreter");
  }
  throw Error(describe(node) + ": the interpreter does not know this operator");
}

// The feed of an input or weight, checked against the node's declared type.
const Tensor& checked_feed(const ir::Node& node, const TensorMap& feeds) {
  const std::string kind(ir::to_string(node.op));
  const ir::Dims& expected = node.outputs.front().dims;
  auto it = feeds.find(node.name());
  if (it == feeds.end()) {
    throw Error("no feed for " + kind + " '" + node.name() + "' of shape " +
                ir::to_string(expected) + " (random_feeds can make one)");
  }
  const Tensor& given = it->second;
  if (given.dims != expected) {
    throw Error("the feed for " + kind + " '" + node.name() + "' has shape " +
                ir::to_string(given.dims) + " but the graph declares " + ir::to_string(expected));
  }
  if (static_cast<int64_t>(given.data.size()) != detail::product(expected)) {
    throw Error("the feed for " + kind + " '" + node.name() + "' of shape " +
                ir::to_string(expected) + " holds " + std::to_string(given.data.size()) +
                " values");
  }
  return given;
}

}  // namespace

void require_static_graph(const ir::Graph& graph, std::string_view runner) {
  for (const ir::Node& node : graph.nodes()) {
    if (auto problem = symbolic_problem(node)) {
      refuse_symbolic(runner, "graph '" + graph.name() + "'", *problem);
    }
  }
}

std::vector<Tensor> Interpreter::evaluate(const ir::Node& node,
                                          const std::vector<const Tensor*>& inputs) const {
  if (node.outputs.empty() || node.output_names.empty()) {
    throw Error("interpreter: a node of operator " + std::string(ir::to_string(node.op)) +
                " has no inferred outputs");
  }
  if (auto problem = symbolic_problem(node)) {
    refuse_symbolic("the reference interpreter", "", *problem);
  }
  check_inputs(node, inputs);
  std::vector<Tensor> outputs = compute(node, inputs);
  if (options_.precision == Precision::F32) {
    for (size_t k = 0; k < outputs.size() && k < node.outputs.size(); ++k) {
      round_to_element_type(outputs[k], node.outputs[k].dtype);
    }
  }
  return outputs;
}

std::vector<std::vector<Tensor>> Interpreter::run_all(const ir::Graph& graph,
                                                      const TensorMap& feeds) const {
  require_static_graph(graph, "the reference interpreter");
  std::vector<std::vector<Tensor>> values(graph.num_nodes());
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (node.op == OpKind::Input || node.op == OpKind::Weight) {
      Tensor value = checked_feed(node, feeds);
      if (options_.precision == Precision::F32) {
        round_to_element_type(value, node.outputs.front().dtype);
      }
      values[id].push_back(std::move(value));
      continue;
    }
    std::vector<const Tensor*> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueRef& ref : node.inputs) inputs.push_back(&values[ref.node][ref.output]);
    values[id] = evaluate(node, inputs);
  }
  return values;
}

TensorMap Interpreter::run(const ir::Graph& graph, const TensorMap& feeds) const {
  // Like run_all, but each value is dropped after its last use so that large models fit in
  // memory, and nodes no output depends on are skipped (their feeds are still checked).
  require_static_graph(graph, "the reference interpreter");
  const size_t count = graph.num_nodes();
  std::vector<bool> needed(count, false);
  std::vector<ir::NodeId> last_use(count, 0);
  for (const ir::GraphOutput& output : graph.outputs()) needed[output.value.node] = true;
  for (size_t id = count; id-- > 0;) {
    if (!needed[id]) continue;
    for (const ir::ValueRef& ref : graph.node(static_cast<ir::NodeId>(id)).inputs) {
      needed[ref.node] = true;
      last_use[ref.node] = std::max(last_use[ref.node], static_cast<ir::NodeId>(id));
    }
  }
  std::vector<bool> is_output(count, false);
  for (const ir::GraphOutput& output : graph.outputs()) is_output[output.value.node] = true;

  size_t operators_to_run = 0;
  for (ir::NodeId id = 0; id < count; ++id) {
    operators_to_run += needed[id] && !ir::op_info(graph.node(id).op).is_leaf() ? 1 : 0;
  }
  size_t operators_done = 0;

  std::vector<std::vector<Tensor>> values(count);
  for (ir::NodeId id = 0; id < count; ++id) {
    const ir::Node& node = graph.node(id);
    if (node.op == OpKind::Input || node.op == OpKind::Weight) {
      const Tensor& feed = checked_feed(node, feeds);
      if (!needed[id]) continue;
      Tensor value = feed;
      if (options_.precision == Precision::F32) {
        round_to_element_type(value, node.outputs.front().dtype);
      }
      values[id].push_back(std::move(value));
      continue;
    }
    if (!needed[id]) continue;
    std::vector<const Tensor*> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueRef& ref : node.inputs) inputs.push_back(&values[ref.node][ref.output]);
    values[id] = evaluate(node, inputs);
    for (const ir::ValueRef& ref : node.inputs) {
      if (last_use[ref.node] == id && !is_output[ref.node]) values[ref.node].clear();
    }
    if (options_.on_progress && !ir::op_info(node.op).is_leaf()) {
      options_.on_progress(++operators_done, operators_to_run);
    }
  }

  TensorMap results;
  for (const ir::GraphOutput& output : graph.outputs()) {
    results.insert_or_assign(output.name, values[output.value.node][output.value.output]);
  }
  return results;
}

}  // namespace saturate::runtime
