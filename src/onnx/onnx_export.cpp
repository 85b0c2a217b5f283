// IR -> ONNX: one emitter per IR operator, weight-only subgraphs folded by the interpreter.
#include "onnx/onnx_export.h"

#include <google/protobuf/stubs/common.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/weight_only.h"
#include "onnx/external_data_writer.h"
#include "onnx/host_tensor.h"
#include "onnx/onnx_tensor_data.h"
#include "onnx/onnxruntime_schemas.h"
#include "onnx/opaque_capsule.h"
#include "onnx/protobuf_log.h"
#include "runtime/interpreter.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueRef;
using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

constexpr int64_t kDefaultOpset = 17;
// ONNX Runtime's contrib operators (MultiHeadAttention, ...).
constexpr std::string_view kMicrosoftDomain = "com.microsoft";
// The newest opset the ONNX C++ checker we link (1.12) knows.
constexpr int64_t kCheckerMaxOpset = 17;
// Initializers this large or larger go to the external data file (as onnx.save's default).
constexpr size_t kExternalDataThreshold = 1024;
// Past this the model cannot be one protobuf (2 GB, less room for the graph itself).
constexpr uint64_t kProtobufWeightBudget = uint64_t{1900} << 20;

int64_t ir_version_for(int64_t opset) {
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

std::pair<int64_t, int64_t> same_pads(int64_t size, int64_t out, int64_t kernel, int64_t stride) {
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

std::string_view activation_op(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::None:
      return "";
    case ir::Activation::Sigmoid:
      return "Sigmoid";
    case ir::Activation::Relu:
      return "Relu";
    case ir::Activation::Tanh:
      return "Tanh";
  }
  return "";
}

void set_tensor_type(::onnx::ValueInfoProto& info, const std::string& name,
                     const ir::TensorType& type) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(to_onnx_elem_type(type.dtype));
  auto* shape = tensor->mutable_shape();
  for (int64_t d : type.dims) shape->add_dim()->set_dim_value(d);
}

class Exporter {
 public:
  // With `external`, initializers of kExternalDataThreshold bytes or more go to that file.
  Exporter(const ir::Graph& graph, const OnnxModel& source, ExternalDataWriter* external = nullptr)
      : graph_(graph), source_(source), external_(external) {}
  ModelProto run();

 private:
  void choose_opset();
  void analyse();
  void assign_names();
  void add_inputs();
  void emit(NodeId id);
  void emit_initializer(NodeId id);
  void emit_opaque(NodeId id);
  void add_outputs();

  // Names.
  std::string fresh(const std::string& base);
  const std::string& name_of(ValueRef value) const {
    ValueRef v = resolve(value);
    return names_.at(v.node).at(v.output);
  }
  // A node that writes nothing: noop, and a reshape to its input's own shape (fusions that
  // keep a value's shape, and SDPA's reshapes to the same 4-d shape, leave them).
  bool is_alias(const ir::Node& node) const {
    return node.op == OpKind::Noop ||
           (node.op == OpKind::Reshape && node.outputs[0].dims == dims(node.inputs[0]));
  }
  ValueRef resolve(ValueRef value) const {
    while (is_alias(graph_.node(value.node))) value = graph_.node(value.node).inputs[0];
    return value;
  }
  const ir::Dims& dims(ValueRef value) const { return graph_.type(value).dims; }

  // Emission helpers.
  NodeProto& add_node(const std::string& op_type, std::vector<std::string> inputs,
                      std::vector<std::string> outputs);
  std::string ints_initializer(const std::vector<int64_t>& values, const std::string& base);
  std::string scalar_initializer(double value, const std::string& base);
  void emit_activation(const std::string& pre, const std::string& out, ir::Activation activation);
  void emit_multi_head_attention(NodeId id);

  // A pad that the consuming conv or average pool folds into its own pads.
  std::optional<NodeId> foldable_pad(NodeId consumer) const;
  runtime::Tensor value_of(ValueRef value);
  const std::vector<float>& weight_data(const ir::Node& node) const;

  const ir::Graph& graph_;
  const OnnxModel& source_;
  ExternalDataWriter* external_ = nullptr;
  ModelProto model_;
  GraphProto* out_ = nullptr;
  int64_t opset_ = kDefaultOpset;
  bool uses_microsoft_domain_ = false;  // a contrib operator was written
  std::vector<bool> needed_;
  std::vector<bool> known_;         // computed from weights and constants only
  std::vector<bool> materialized_;  // a known value the emitted graph reads
  std::vector<bool> emitted_pad_;   // pads that stay as ONNX Pad nodes
  std::vector<std::vector<std::string>> names_;
  std::set<std::string> taken_;
  std::unordered_map<std::string, std::string> embedded_;  // embedded constant -> its bytes
  std::unordered_map<NodeId, std::vector<runtime::Tensor>> folded_;
};

std::string Exporter::fresh(const std::string& base) {
  std::string name = base.empty() ? "v" : base;
  for (int suffix = 1; taken_.contains(name); ++suffix) name = base + "." + std::to_string(suffix);
  taken_.insert(name);
  return name;
}

NodeProto& Exporter::add_node(const std::string& op_type, std::vector<std::string> inputs,
                              std::vector<std::string> outputs) {
  NodeProto& node = *out_->add_node();
  node.set_op_type(op_type);
  node.set_name(fresh(outputs.empty() ? op_type : outputs.front() + "/" + op_type));
  for (auto& name : inputs) node.add_input(std::move(name));
  for (auto& name : outputs) node.add_output(std::move(name));
  return node;
}

void add_attr(NodeProto& node, const std::string& name, int64_t value) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(value);
}

void add_attr(NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values) attr->add_ints(v);
}

void add_attr(NodeProto& node, const std::string& name, float value) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::FLOAT);
  attr->set_f(value);
}

std::string Exporter::ints_initializer(const std::vector<int64_t>& values,
                                       const std::string& base) {
  std::string name = fresh(base);
  write_ints(*out_->add_initializer(), name, {static_cast<int64_t>(values.size())}, values);
  return name;
}

std::string Exporter::scalar_initializer(double value, const std::string& base) {
  std::string name = fresh(base);
  write_floats(*out_->add_initializer(), name, {}, {static_cast<float>(value)});
  return name;
}

void Exporter::emit_activation(const std::string& pre, const std::string& out,
                               ir::Activation activation) {
  if (activation == ir::Activation::None) return;
  add_node(std::string(activation_op(activation)), {pre}, {out});
}

ModelProto Exporter::run() {
  out_ = model_.mutable_graph();
  choose_opset();
  analyse();
  assign_names();
  add_inputs();
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    if (needed_[id]) emit(id);
  }
  add_outputs();

  model_.set_ir_version(ir_version_for(opset_));
  auto* opset = model_.add_opset_import();
  opset->set_domain("");
  opset->set_version(opset_);
  for (const auto& [domain, version] : source_.domain_opsets) {
    auto* other = model_.add_opset_import();
    other->set_domain(domain);
    other->set_version(version);
  }
  if (uses_microsoft_domain_ && !source_.domain_opsets.contains(std::string(kMicrosoftDomain))) {
    auto* microsoft = model_.add_opset_import();
    microsoft->set_domain(std::string(kMicrosoftDomain));
    microsoft->set_version(1);
  }
  model_.set_producer_name("saturate");
  model_.set_producer_version(source_.producer_name.empty()
                                  ? std::string("0.1")
                                  : "0.1 (from " + source_.producer_name + " " +
                                        source_.producer_version + ")");
  if (!source_.model_domain.empty()) model_.set_domain(source_.model_domain);
  if (source_.model_version != 0) model_.set_model_version(source_.model_version);
  if (!source_.doc_string.empty()) model_.set_doc_string(source_.doc_string);
  for (const auto& [key, value] : source_.metadata) {
    auto* prop = model_.add_metadata_props();
    prop->set_key(key);
    prop->set_value(value);
  }
  out_->set_name(source_.graph_name.empty() ? graph_.name() : source_.graph_name);
  return std::move(model_);
}

void Exporter::choose_opset() {
  bool default_domain_opaque = false;
  for (const ir::Node& node : graph_.nodes()) {
    if (node.op != OpKind::Opaque) continue;
    const std::string& domain = node.attrs.get_string("domain");
    if (domain.empty() || domain == "ai.onnx") default_domain_opaque = true;
  }
  if (!source_.from_onnx) {
    opset_ = kDefaultOpset;
  } else if (default_domain_opaque) {
    opset_ = source_.opset;  // opaque nodes were written for this opset's schemas
  } else {
    opset_ = std::max(kDefaultOpset, source_.opset);
  }
}

void Exporter::analyse() {
  const size_t count = graph_.num_nodes();
  needed_.assign(count, false);
  materialized_.assign(count, false);
  emitted_pad_.assign(count, false);
  names_.resize(count);
  // Queried on resolved values only: an alias's entry is never read.
  known_ = ir::weight_only_nodes(graph_);
  std::vector<NodeId> stack;
  for (const auto& output : graph_.outputs()) stack.push_back(resolve(output.value).node);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (needed_[id]) continue;
    needed_[id] = true;
    if (known_[id]) {
      materialized_[id] = true;  // read by a computed node or a graph output
      continue;
    }
    for (ValueRef input : graph_.node(id).inputs) {
      ValueRef v = resolve(input);
      stack.push_back(v.node);
    }
  }
  // A pad stays a node unless every reader folds it.
  std::vector<bool> read_unfolded(count, false);
  for (const auto& output : graph_.outputs()) read_unfolded[resolve(output.value).node] = true;
  for (NodeId id = 0; id < count; ++id) {
    if (!needed_[id] || known_[id]) continue;
    std::optional<NodeId> folded = foldable_pad(id);
    const ir::Node& node = graph_.node(id);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      NodeId producer = resolve(node.inputs[k]).node;
      if (!(k == 0 && folded && *folded == producer)) read_unfolded[producer] = true;
    }
  }
  for (NodeId id = 0; id < count; ++id) {
    emitted_pad_[id] = graph_.node(id).op == OpKind::Pad && read_unfolded[id];
  }
  // Pads that nothing reads unfolded are not needed as nodes, but their inputs are.
  for (NodeId id = 0; id < count; ++id) {
    if (graph_.node(id).op == OpKind::Pad && needed_[id] && !known_[id] && !emitted_pad_[id]) {
      needed_[id] = false;
    }
  }
}

std::optional<NodeId> Exporter::foldable_pad(NodeId consumer) const {
  const ir::Node& node = graph_.node(consumer);
  bool conv = node.op == OpKind::Conv2d;
  bool average = node.op == OpKind::PoolAvg && node.attrs.get_padding() == ir::Padding::Valid;
  if (!conv && !average) return std::nullopt;
  ValueRef input = resolve(node.inputs[0]);
  const ir::Node& producer = graph_.node(input.node);
  if (producer.op != OpKind::Pad || known_[input.node]) return std::nullopt;
  const auto& pads = producer.attrs.get_ints("pads");
  if (pads.size() != 8 || pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0) {
    return std::nullopt;
  }
  return input.node;
}

void Exporter::assign_names() {
  for (const auto& output : graph_.outputs()) taken_.insert(output.name);
  for (NodeId id : graph_.inputs()) taken_.insert(graph_.node(id).name());
  if (source_.from_onnx) {
    for (const auto& name : source_.input_names) taken_.insert(name);
  }
  // A graph output produced by an operator takes the output's name; inputs keep theirs.
  for (const auto& output : graph_.outputs()) {
    ValueRef v = resolve(output.value);
    const ir::Node& node = graph_.node(v.node);
    if (node.op == OpKind::Input || known_[v.node]) continue;
    auto& names = names_[v.node];
    names.resize(node.outputs.size());
    if (names[v.output].empty()) names[v.output] = output.name;
  }
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    const ir::Node& node = graph_.node(id);
    auto& names = names_[id];
    names.resize(node.outputs.size());
    for (size_t k = 0; k < names.size(); ++k) {
      if (!names[k].empty()) continue;
      names[k] = node.op == OpKind::Input ? node.output_names[k] : fresh(node.output_names[k]);
    }
  }
}

void Exporter::add_inputs() {
  std::set<std::string> declared;
  auto declare = [&](const std::string& name, const ir::TensorType& type) {
    if (!declared.insert(name).second) return;
    set_tensor_type(*out_->add_input(), name, type);
  };
  if (source_.from_onnx) {
    // The original interface, even for inputs the optimized graph no longer reads.
    for (const auto& name : source_.input_names) {
      std::optional<ValueRef> value = graph_.find_value(name);
      if (!value || graph_.node(value->node).op != OpKind::Input) {
        value = source_.graph.find_value(name);
      }
      if (!value) continue;
      const ir::Graph& owner = graph_.find_value(name) ? graph_ : source_.graph;
      declare(name, owner.type(*value));
    }
  }
  for (NodeId id : graph_.inputs()) declare(graph_.node(id).name(), graph_.node(id).outputs[0]);
}

const std::vector<float>& Exporter::weight_data(const ir::Node& node) const {
  auto it = source_.weights.find(node.name());
  if (it == source_.weights.end()) {
    throw Error("no data for weight '" + node.name() + "' " + ir::to_string(node.outputs[0]) +
                ": exporting to ONNX needs the weights of an ONNX model (this graph did not "
                "come from one)");
  }
  if (static_cast<int64_t>(it->second.size()) != node.outputs[0].num_elements()) {
    throw Error("the data of weight '" + node.name() + "' has " +
                std::to_string(it->second.size()) + " values, its type " +
                ir::to_string(node.outputs[0]) + " needs " +
                std::to_string(node.outputs[0].num_elements()));
  }
  return it->second;
}

runtime::Tensor Exporter::value_of(ValueRef value) {
  value = resolve(value);
  const ir::Node& node = graph_.node(value.node);
  if (node.op == OpKind::Weight) {
    const std::vector<float>& data = weight_data(node);
    return runtime::Tensor(node.outputs[0].dims, std::vector<double>(data.begin(), data.end()));
  }
  if (node.op == OpKind::Constant) {
    return runtime::Tensor(node.outputs[0].dims, node.attrs.get_float("value"));
  }
  auto it = folded_.find(value.node);
  if (it == folded_.end()) {
    std::vector<runtime::Tensor> inputs;
    for (ValueRef input : node.inputs) inputs.push_back(value_of(input));
    std::vector<const runtime::Tensor*> pointers;
    for (const auto& t : inputs) pointers.push_back(&t);
    // Folded in float64 and rounded to float32 once, where the initializer is written: a
    // chain of folded weights (Wq times Wk transposed, then scaled) would otherwise round at
    // every step, and a model that amplifies rounding (softmax over large logits) shows it.
    runtime::Interpreter interpreter(runtime::Precision::F64);
    it = folded_.emplace(value.node, interpreter.evaluate(node, pointers)).first;
  }
  return it->second.at(value.output);
}

void Exporter::emit_initializer(NodeId id) {
  const ir::Node& node = graph_.node(id);
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    std::vector<float> computed;
    const std::vector<float>* data = &computed;
    if (node.op == OpKind::Weight) {
      data = &weight_data(node);  // the source's data, not a copy
    } else if (node.op == OpKind::Constant) {
      computed.assign(static_cast<size_t>(node.outputs[0].num_elements()),
                      static_cast<float>(node.attrs.get_float("value")));
    } else {
      runtime::Tensor t = value_of({id, static_cast<uint32_t>(k)});
      computed.assign(t.data.begin(), t.data.end());
    }
    TensorProto& tensor = *out_->add_initializer();
    const size_t bytes = data->size() * sizeof(float);
    if (external_ != nullptr && bytes >= kExternalDataThreshold) {
      tensor.set_name(names_[id][k]);
      tensor.set_data_type(TensorProto::FLOAT);
      for (int64_t d : node.outputs[k].dims) tensor.add_dims(d);
      external_->append(tensor, reinterpret_cast<const char*>(data->data()), bytes);
    } else {
      write_floats(tensor, names_[id][k], node.outputs[k].dims, *data);
    }
  }
}

void Exporter::emit(NodeId id) {
  const ir::Node& node = graph_.node(id);
  if (node.op == OpKind::Input || is_alias(node)) return;
  if (known_[id]) {
    if (materialized_[id]) emit_initializer(id);
    return;
  }
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  auto pre_activation = [&]() -> std::string {
    ir::Activation activation = attrs.get_activation();
    return activation == ir::Activation::None ? y : fresh(y + "_pre");
  };
  switch (node.op) {
    case OpKind::Input:
    case OpKind::Weight:
    case OpKind::Constant:
    case OpKind::Noop:
      return;
    case OpKind::EwAdd:
    case OpKind::Add:
      add_node("Add", {in(0), in(1)}, {y});
      return;
    case OpKind::EwMul:
    case OpKind::Mul:
      add_node("Mul", {in(0), in(1)}, {y});
      return;
    case OpKind::Sub:
      add_node("Sub", {in(0), in(1)}, {y});
      return;
    case OpKind::Div:
      add_node("Div", {in(0), in(1)}, {y});
      return;
    case OpKind::Pow:
      add_node("Pow", {in(0), in(1)}, {y});
      return;
    case OpKind::Relu:
      add_node("Relu", {in(0)}, {y});
      return;
    case OpKind::Tanh:
      add_node("Tanh", {in(0)}, {y});
      return;
    case OpKind::Sigmoid:
      add_node("Sigmoid", {in(0)}, {y});
      return;
    case OpKind::Sqrt:
      add_node("Sqrt", {in(0)}, {y});
      return;
    case OpKind::Erf:
      add_node("Erf", {in(0)}, {y});
      return;
    case OpKind::Exp:
      add_node("Exp", {in(0)}, {y});
      return;
    case OpKind::MatMul: {
      std::string pre = pre_activation();
      add_node("MatMul", {in(0), in(1)}, {pre});
      emit_activation(pre, y, attrs.get_activation());
      return;
    }
    case OpKind::Conv2d: {
      const ir::Dims& x = dims(node.inputs[0]);
      const ir::Dims& w = dims(node.inputs[1]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t sh = attrs.get_int("stride_h");
      int64_t sw = attrs.get_int("stride_w");
      std::vector<int64_t> pads{0, 0, 0, 0};
      if (attrs.get_padding() == ir::Padding::Same) {
        auto [top, bottom] = same_pads(x[2], out[2], w[2], sh);
        auto [left, right] = same_pads(x[3], out[3], w[3], sw);
        pads = {top, left, bottom, right};
      }
      std::string source = in(0);
      if (auto pad = foldable_pad(id)) {
        const auto& p = graph_.node(*pad).attrs.get_ints("pads");
        pads = {pads[0] + p[2], pads[1] + p[3], pads[2] + p[6], pads[3] + p[7]};
        source = name_of(graph_.node(*pad).inputs[0]);
      }
      std::string pre = pre_activation();
      NodeProto& conv = add_node("Conv", {source, in(1)}, {pre});
      add_attr(conv, "kernel_shape", std::vector<int64_t>{w[2], w[3]});
      add_attr(conv, "strides", std::vector<int64_t>{sh, sw});
      add_attr(conv, "pads", pads);
      add_attr(conv, "group", x[1] / w[1]);
      emit_activation(pre, y, attrs.get_activation());
      return;
    }
    case OpKind::PoolMax:
    case OpKind::PoolAvg: {
      const ir::Dims& x = dims(node.inputs[0]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t kh = attrs.get_int("kernel_h");
      int64_t kw = attrs.get_int("kernel_w");
      int64_t sh = attrs.get_int("stride_h");
      int64_t sw = attrs.get_int("stride_w");
      std::vector<int64_t> pads{0, 0, 0, 0};
      if (attrs.get_padding() == ir::Padding::Same) {
        auto [top, bottom] = same_pads(x[2], out[2], kh, sh);
        auto [left, right] = same_pads(x[3], out[3], kw, sw);
        pads = {top, left, bottom, right};
      }
      std::string source = in(0);
      bool count_padding = false;
      if (auto pad = foldable_pad(id)) {
        const auto& p = graph_.node(*pad).attrs.get_ints("pads");
        pads = {p[2], p[3], p[6], p[7]};
        source = name_of(graph_.node(*pad).inputs[0]);
        count_padding = true;
      }
      std::string pre = pre_activation();
      NodeProto& pool =
          add_node(node.op == OpKind::PoolMax ? "MaxPool" : "AveragePool", {source}, {pre});
      add_attr(pool, "kernel_shape", std::vector<int64_t>{kh, kw});
      add_attr(pool, "strides", std::vector<int64_t>{sh, sw});
      add_attr(pool, "pads", pads);
      if (node.op == OpKind::PoolAvg) add_attr(pool, "count_include_pad", int64_t{count_padding});
      emit_activation(pre, y, attrs.get_activation());
      return;
    }
    case OpKind::Transpose: {
      NodeProto& t = add_node("Transpose", {in(0)}, {y});
      add_attr(t, "perm", attrs.get_ints("perm"));
      return;
    }
    case OpKind::Enlarge: {
      const ir::Dims& k = dims(node.inputs[0]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t top = (out[2] - k[2]) / 2;
      int64_t left = (out[3] - k[3]) / 2;
      std::vector<int64_t> pads{0, 0, top, left, 0, 0, out[2] - k[2] - top, out[3] - k[3] - left};
      add_node("Pad", {in(0), ints_initializer(pads, y + "_pads")}, {y});
      return;
    }
    case OpKind::Pad:
      add_node("Pad", {in(0), ints_initializer(attrs.get_ints("pads"), y + "_pads")}, {y});
      return;
    case OpKind::Concat: {
      std::vector<std::string> inputs;
      for (size_t k = 0; k < node.inputs.size(); ++k) inputs.push_back(in(k));
      NodeProto& concat = add_node("Concat", inputs, {y});
      add_attr(concat, "axis", attrs.get_int("axis"));
      return;
    }
    case OpKind::Split: {
      const auto& sizes = attrs.get_ints("sizes");
      std::vector<std::string> inputs{in(0)};
      if (opset_ >= 13) inputs.push_back(ints_initializer(sizes, y + "_sizes"));
      NodeProto& split = add_node("Split", inputs, names_[id]);
      add_attr(split, "axis", attrs.get_int("axis"));
      if (opset_ < 13) add_attr(split, "split", sizes);
      return;
    }
    case OpKind::Merge:
      throw Error("node '" + node.name() +
                  "' (merge) reads a value that is not a weight: ONNX has no operator for it");
    case OpKind::Reshape:
      add_node("Reshape", {in(0), ints_initializer(node.outputs[0].dims, y + "_shape")}, {y});
      return;
    case OpKind::BatchNorm: {
      NodeProto& bn = add_node("BatchNormalization", {in(0), in(1), in(2), in(3), in(4)}, {y});
      add_attr(bn, "epsilon", static_cast<float>(attrs.get_float("epsilon")));
      return;
    }
    case OpKind::Softmax: {
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      if (opset_ >= 13 || axis == rank - 1) {
        NodeProto& softmax = add_node("Softmax", {in(0)}, {y});
        add_attr(softmax, "axis", axis);
        return;
      }
      // Before opset 13 Softmax works on the flattened trailing axes: move the axis last.
      std::vector<int64_t> perm;
      for (int64_t a = 0; a < rank; ++a) {
        if (a != axis) perm.push_back(a);
      }
      perm.push_back(axis);
      std::vector<int64_t> inverse(static_cast<size_t>(rank));
      for (int64_t a = 0; a < rank; ++a) inverse[static_cast<size_t>(perm[a])] = a;
      std::string moved = fresh(y + "_moved");
      std::string soft = fresh(y + "_softmax");
      add_attr(add_node("Transpose", {in(0)}, {moved}), "perm", perm);
      add_attr(add_node("Softmax", {moved}, {soft}), "axis", rank - 1);
      add_attr(add_node("Transpose", {soft}, {y}), "perm", inverse);
      return;
    }
    case OpKind::LayerNorm: {
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      auto epsilon = static_cast<float>(attrs.get_float("epsilon"));
      if (opset_ >= 17) {
        NodeProto& ln = add_node("LayerNormalization", {in(0), in(1), in(2)}, {y});
        add_attr(ln, "axis", axis);
        add_attr(ln, "epsilon", epsilon);
        return;
      }
      std::vector<int64_t> axes;
      for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
      std::string mean = fresh(y + "_mean");
      std::string centred = fresh(y + "_centred");
      std::string square = fresh(y + "_square");
      std::string variance = fresh(y + "_variance");
      std::string shifted = fresh(y + "_variance_eps");
      std::string deviation = fresh(y + "_deviation");
      std::string normal = fresh(y + "_normalized");
      std::string scaled = fresh(y + "_scaled");
      NodeProto& m = add_node("ReduceMean", {in(0)}, {mean});
      add_attr(m, "axes", axes);
      add_node("Sub", {in(0), mean}, {centred});
      add_node("Mul", {centred, centred}, {square});
      NodeProto& v = add_node("ReduceMean", {square}, {variance});
      add_attr(v, "axes", axes);
      add_node("Add", {variance, scalar_initializer(epsilon, y + "_epsilon")}, {shifted});
      add_node("Sqrt", {shifted}, {deviation});
      add_node("Div", {centred, deviation}, {normal});
      add_node("Mul", {normal, in(1)}, {scaled});
      add_node("Add", {scaled, in(2)}, {y});
      return;
    }
    case OpKind::ReduceMean: {
      const auto& axes = attrs.get_ints("axes");
      std::vector<std::string> inputs{in(0)};
      if (opset_ >= 18) inputs.push_back(ints_initializer(axes, y + "_axes"));
      NodeProto& mean = add_node("ReduceMean", inputs, {y});
      if (opset_ < 18) add_attr(mean, "axes", axes);
      add_attr(mean, "keepdims", attrs.get_int("keepdims"));
      return;
    }
    case OpKind::Gelu: {
      if (opset_ >= 20) {
        add_node("Gelu", {in(0)}, {y});
        return;
      }
      std::string scaled = fresh(y + "_div_sqrt2");
      std::string erf = fresh(y + "_erf");
      std::string shifted = fresh(y + "_erf_plus_1");
      std::string product = fresh(y + "_times_x");
      add_node("Div", {in(0), scalar_initializer(std::sqrt(2.0), y + "_sqrt2")}, {scaled});
      add_node("Erf", {scaled}, {erf});
      add_node("Add", {erf, scalar_initializer(1.0, y + "_one")}, {shifted});
      add_node("Mul", {in(0), shifted}, {product});
      add_node("Mul", {product, scalar_initializer(0.5, y + "_half")}, {y});
      return;
    }
    case OpKind::Clip: {
      double low = attrs.get_float("min");
      double high = attrs.get_float("max");
      std::vector<std::string> inputs{in(0)};
      bool has_low = low > std::numeric_limits<float>::lowest();
      bool has_high = high < std::numeric_limits<float>::max();
      inputs.push_back(has_low ? scalar_initializer(low, y + "_min") : "");
      if (has_high) inputs.push_back(scalar_initializer(high, y + "_max"));
      if (!has_high && !has_low) inputs.pop_back();
      add_node("Clip", inputs, {y});
      return;
    }
    case OpKind::Attention: {
      std::string scores = fresh(y + "_scores");
      std::string scaled = fresh(y + "_scaled");
      std::string weights = fresh(y + "_weights");
      auto rank = static_cast<int64_t>(dims(node.inputs[0]).size());
      add_node("MatMul", {in(0), in(1)}, {scores});
      add_node("Div", {scores, scalar_initializer(attrs.get_float("scale"), y + "_scale")},
               {scaled});
      add_attr(add_node("Softmax", {scaled}, {weights}), "axis", rank - 1);
      add_node("MatMul", {weights, in(2)}, {y});
      return;
    }
    case OpKind::MultiHeadAttention:
      emit_multi_head_attention(id);
      return;
    case OpKind::BiasGelu:
    case OpKind::FastGelu:
    case OpKind::QuickGelu: {
      std::vector<std::string> inputs{in(0)};
      if (node.op == OpKind::BiasGelu) inputs.push_back(in(1));
      const char* op_type = node.op == OpKind::BiasGelu   ? "BiasGelu"
                            : node.op == OpKind::FastGelu ? "FastGelu"
                                                          : "QuickGelu";
      NodeProto& gelu = add_node(op_type, inputs, {y});
      gelu.set_domain(std::string(kMicrosoftDomain));
      if (node.op == OpKind::QuickGelu) {
        add_attr(gelu, "alpha", static_cast<float>(attrs.get_float("alpha")));
      }
      uses_microsoft_domain_ = true;
      return;
    }
    case OpKind::RMSNorm: {
      // ONNX Runtime's kernel, in the default domain (as ONNX Runtime declares it).
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      NodeProto& norm = add_node("SimplifiedLayerNormalization", {in(0), in(1)}, {y});
      add_attr(norm, "axis", axis);
      add_attr(norm, "epsilon", static_cast<float>(attrs.get_float("epsilon")));
      return;
    }
    case OpKind::Opaque:
      emit_opaque(id);
      return;
  }
  throw Error("cannot export operator " + std::string(ir::to_string(node.op)) + " to ONNX");
}

// com.microsoft.MultiHeadAttention. Its attention_bias must be (B or 1, N or 1, S, L): a bias
// that broadcasts along the query or key axis (a padding mask (B, 1, 1, L)) is expanded first.
void Exporter::emit_multi_head_attention(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const std::string& y = names_[id][0];
  std::vector<std::string> inputs{name_of(node.inputs[0]), name_of(node.inputs[1]),
                                  name_of(node.inputs[2])};
  if (node.inputs.size() == 4) {
    const ir::Dims& q = dims(node.inputs[0]);
    const ir::Dims& k = dims(node.inputs[1]);
    ir::Dims bias = dims(node.inputs[3]);
    while (bias.size() < 4) bias.insert(bias.begin(), 1);
    const ir::Dims wanted{bias[0], bias[1], q[1], k[1]};
    std::string bias_name = name_of(node.inputs[3]);
    if (dims(node.inputs[3]) != wanted) {
      std::string expanded = fresh(y + "_attention_bias");
      add_node("Expand", {bias_name, ints_initializer(wanted, y + "_bias_shape")}, {expanded});
      bias_name = expanded;
    }
    inputs.insert(inputs.end(), {"", "", bias_name});
  }
  NodeProto& mha = add_node("MultiHeadAttention", inputs, {y});
  mha.set_domain(std::string(kMicrosoftDomain));
  add_attr(mha, "num_heads", node.attrs.get_int("num_heads"));
  add_attr(mha, "scale", static_cast<float>(node.attrs.get_float("scale")));
  uses_microsoft_domain_ = true;
}

void Exporter::emit_opaque(NodeId id) {
  const ir::Node& node = graph_.node(id);
  OpaqueCapsule capsule = decode_capsule(node.attrs.get_string("onnx_attributes"), node.name());
  // Outer values the subgraphs read by name (the last IR inputs): visible under that name again.
  if (capsule.implicit_inputs.size() > node.inputs.size()) {
    throw Error("opaque node '" + node.name() + "' has fewer inputs than its subgraphs read");
  }
  const size_t explicit_inputs = node.inputs.size() - capsule.implicit_inputs.size();
  for (size_t k = 0; k < capsule.implicit_inputs.size(); ++k) {
    const std::string& wanted = capsule.implicit_inputs[k];
    const std::string& have = name_of(node.inputs[explicit_inputs + k]);
    if (have == wanted) continue;
    if (taken_.contains(wanted)) {
      throw Error("cannot export control-flow node '" + node.name() + "': its subgraph reads " +
                  wanted + ", a name the optimized graph gives another value");
    }
    taken_.insert(wanted);
    add_node("Identity", {have}, {wanted});
  }
  std::set<std::string> read_by_subgraphs;
  if (!capsule.implicit_inputs.empty() || !capsule.constants.empty()) {
    for (const auto& name : outer_references(capsule.node)) read_by_subgraphs.insert(name);
  }
  NodeProto& out = *out_->add_node();
  out.set_op_type(node.attrs.get_string("op_type"));
  out.set_domain(node.attrs.get_string("domain"));
  out.set_name(fresh(names_[id][0] + "/" + out.op_type()));
  *out.mutable_attribute() = capsule.node.attribute();
  if (capsule.node.input_size() == 0 && capsule.node.output_size() == 0) {
    for (size_t k = 0; k < node.inputs.size(); ++k) capsule.node.add_input(kIrValueMarker);
    for (size_t k = 0; k < node.outputs.size(); ++k) capsule.node.add_output(kIrValueMarker);
  }
  std::unordered_map<std::string, std::string> constant_names;
  for (const auto& constant : capsule.constants) {
    if (constant.ByteSizeLong() > static_cast<size_t>(INT_MAX)) {
      throw Error("cannot export opaque node '" + node.name() + "': its constant " +
                  constant.name() + " is past protobuf's 2 GB limit");
    }
    std::string bytes = constant.SerializeAsString();
    std::string name = constant.name();
    auto it = embedded_.find(name);
    if (it == embedded_.end() || it->second != bytes) {
      // A constant this export has not written yet (or a different one of the same name).
      if (taken_.contains(name)) {
        if (read_by_subgraphs.contains(name)) {
          throw Error("cannot export control-flow node '" + node.name() +
                      "': its subgraph reads constant " + name +
                      ", a name the optimized graph gives another value");
        }
        name = fresh(name);
      }
      taken_.insert(name);
      embedded_[name] = bytes;
      TensorProto& initializer = *out_->add_initializer();
      initializer = constant;
      initializer.set_name(name);
    }
    constant_names[constant.name()] = name;
  }
  size_t next_input = 0;
  for (const auto& marker : capsule.node.input()) {
    if (marker == kIrValueMarker) {
      if (next_input >= explicit_inputs) {
        throw Error("opaque node '" + node.name() + "' has fewer inputs than its ONNX node");
      }
      out.add_input(name_of(node.inputs[next_input++]));
    } else if (marker.empty()) {
      out.add_input("");
    } else {
      auto it = constant_names.find(marker);
      if (it == constant_names.end()) {
        throw Error("opaque node '" + node.name() + "' refers to a missing constant " + marker);
      }
      out.add_input(it->second);
    }
  }
  if (next_input != explicit_inputs) {
    throw Error("opaque node '" + node.name() + "' has more inputs than its ONNX node");
  }
  size_t next_output = 0;
  for (const auto& marker : capsule.node.output()) {
    if (marker == kIrValueMarker) {
      if (next_output >= names_[id].size()) {
        throw Error("opaque node '" + node.name() + "' has fewer outputs than its ONNX node");
      }
      out.add_output(names_[id][next_output++]);
    } else if (marker.empty()) {
      out.add_output("");
    } else {
      out.add_output(fresh(names_[id][0] + "_unused"));
    }
  }
  if (next_output != names_[id].size()) {
    throw Error("opaque node '" + node.name() + "' has more outputs than its ONNX node");
  }
  // ONNX cannot infer an unknown operator's outputs: their types go into value_info.
  std::set<std::string> graph_outputs;
  for (const auto& output : graph_.outputs()) graph_outputs.insert(output.name);
  for (size_t k = 0; k < names_[id].size(); ++k) {
    if (!graph_outputs.contains(names_[id][k])) {
      set_tensor_type(*out_->add_value_info(), names_[id][k], node.outputs[k]);
    }
  }
}

void Exporter::add_outputs() {
  for (const auto& output : graph_.outputs()) {
    ValueRef v = resolve(output.value);
    const std::string& name = name_of(v);
    if (name != output.name) add_node("Identity", {name}, {output.name});
    set_tensor_type(*out_->add_output(), output.name, graph_.type(v));
  }
}

}  // namespace

namespace {

// The model's bytes. protobuf refuses (with a log line, or a CHECK failure) to serialize a
// message past INT_MAX bytes, so the size is checked first and the error says what to do.
std::string serialize_model(const ModelProto& model, const ir::Graph& graph, bool external_data) {
  const size_t size = model.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    throw Error("cannot serialize the ONNX model of '" + graph.name() +
                "': " + std::to_string(size) + " bytes, past protobuf's 2 GB limit" +
                (external_data ? " even with its weights in external data"
                               : " (write the weights as external data: --external-data on)"));
  }
  ProtobufLogCapture log;
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    std::string detail = log.messages();
    throw Error("cannot serialize the ONNX model of '" + graph.name() + "'" +
                (detail.empty() ? "" : ": protobuf: " + detail));
  }
  return bytes;
}

// Runs an export step with libprotobuf's log captured: a CHECK failure inside protobuf (which
// logs, then throws FatalException) becomes one Error with what it logged.
template <typename Step>
auto with_protobuf_log(const ir::Graph& graph, Step&& step) {
  ProtobufLogCapture log;
  try {
    return step();
  } catch (const google::protobuf::FatalException& fatal) {
    std::string detail = log.messages();
    throw Error("cannot export the ONNX model of '" + graph.name() +
                "': protobuf failed: " + (detail.empty() ? std::string(fatal.what()) : detail));
  }
}

}  // namespace

namespace {

// The ONNX checker (1.12) on an exported model, for the opsets it knows.
void check_exported_model(const ModelProto& model, const std::string& graph_name) {
  bool checkable = true;
  for (const auto& opset : model.opset_import()) {
    if ((opset.domain().empty() && opset.version() > kCheckerMaxOpset)) checkable = false;
  }
  if (!checkable) return;
  register_onnxruntime_default_domain_schemas();
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    std::string message = error.what();
    if (auto newline = message.find('\n'); newline != std::string::npos) message.resize(newline);
    throw Error("the ONNX model exported for '" + graph_name +
                "' fails the ONNX checker: " + message);
  }
}

}  // namespace

std::string export_onnx(const ir::Graph& graph, const OnnxModel& source) {
  if (graph.outputs().empty()) throw Error("graph '" + graph.name() + "' has no outputs");
  return with_protobuf_log(graph, [&] {
    ModelProto model = Exporter(graph, source).run();
    std::string serialized = serialize_model(model, graph, /*external_data=*/false);
    check_exported_model(model, graph.name());
    return serialized;
  });
}

bool writes_external_data(const ir::Graph& graph, const OnnxModel& source, ExternalData mode) {
  if (mode != ExternalData::Auto) return mode == ExternalData::On;
  if (source.external_tensors > 0) return true;
  uint64_t bytes = 0;
  for (ir::NodeId id : graph.weights()) {
    bytes += static_cast<uint64_t>(graph.node(id).outputs[0].num_elements()) * sizeof(float);
  }
  return bytes > kProtobufWeightBudget;
}

void write_onnx(const ir::Graph& graph, const OnnxModel& source, const std::string& path,
                ExternalData mode) {
  if (graph.outputs().empty()) throw Error("graph '" + graph.name() + "' has no outputs");
  if (!writes_external_data(graph, source, mode)) {
    write_file_atomically(path, export_onnx(graph, source));
    return;
  }
  // model.onnx + model.onnx.data: the data file is written while the initializers are emitted,
  // and moved into place only once the model serialized.
  const std::string data_path = path + ".data";
  const std::string location = std::filesystem::path(data_path).filename().string();
  ExternalDataWriter external(data_path + ".tmp-saturate", location);
  std::string bytes = with_protobuf_log(graph, [&] {
    ModelProto model = Exporter(graph, source, &external).run();
    return serialize_model(model, graph, /*external_data=*/true);
  });
  external.commit(data_path);
  write_file_atomically(path, bytes);
}

OnnxModel make_export_source(const ir::Graph& graph,
                             std::map<std::string, std::vector<float>> weights) {
  OnnxModel source;
  source.graph = graph;
  source.weights = std::move(weights);
  source.graph_name = graph.name();
  for (ir::NodeId id : graph.inputs()) source.input_names.push_back(graph.node(id).name());
  for (const auto& output : graph.outputs()) source.output_names.push_back(output.name);
  return source;
}

}  // namespace saturate::onnx
