// IR -> ONNX: the model writer (opsets, names, inputs, initializers with weight-only subgraphs
// folded by the interpreter, outputs, metadata, external data, the checker). Each operator is
// written by the mapping of its family (export_*.cpp).
#include "onnx/onnx_export.h"

#include <google/protobuf/stubs/common.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "ir/weight_only.h"
#include "onnx/external_data_writer.h"
#include "onnx/host_tensor.h"
#include "onnx/model_with_data_output.h"
#include "onnx/onnx_exporter.h"
#include "onnx/onnx_tensor_data.h"
#include "onnx/onnxruntime_schemas.h"
#include "onnx/protobuf_log.h"
#include "onnx/symbolic_folding.h"
#include "runtime/interpreter.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueRef;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

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

}  // namespace

void set_tensor_type(::onnx::ValueInfoProto& info, const std::string& name,
                     const ir::TensorType& type, const std::map<int64_t, std::string>* dim_names) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(to_onnx_elem_type(type.dtype));
  auto* shape = tensor->mutable_shape();
  for (int64_t d : type.dims) {
    auto* dim = shape->add_dim();
    std::optional<std::string> declared;
    if (dim_names != nullptr) {
      if (auto it = dim_names->find(d); it != dim_names->end()) declared = it->second;
    }
    if (declared) {
      dim->set_dim_param(*declared);
    } else {
      set_onnx_dim(d, *dim);
    }
  }
}

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

void add_attr(NodeProto& node, const std::string& name, const std::vector<float>& values) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::FLOATS);
  for (float v : values) attr->add_floats(v);
}

void add_attr(NodeProto& node, const std::string& name, const std::string& value) {
  auto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(::onnx::AttributeProto::STRING);
  attr->set_s(value);
}

std::string Exporter::ints_initializer(const std::vector<int64_t>& values,
                                       const std::string& base) {
  // A symbolic dim's handle is no size: a path that would write one must build the value from
  // Shape instead (shape_tensor); this keeps a missed one from becoming a wrong model.
  if (ir::has_symbolic(values)) {
    throw Error("cannot write " + base + " as a constant: it holds the symbolic dimension " +
                ir::dim_to_string(*std::find_if(values.begin(), values.end(), ir::is_symbolic)));
  }
  std::string name = fresh(base);
  write_ints(*out_->add_initializer(), name, {static_cast<int64_t>(values.size())}, values);
  return name;
}

std::string Exporter::scalar_initializer(double value, const std::string& base, ir::DType dtype) {
  std::string name = fresh(base);
  write_floats(*out_->add_initializer(), name, {}, {static_cast<float>(value)}, dtype);
  return name;
}

ModelProto Exporter::run() {
  out_ = model_.mutable_graph();
  choose_opset();
  analyse();
  assign_names();
  add_inputs();
  for (const auto& output : graph_.outputs()) output_names_.insert(output.name);
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    if (!needed_[id]) continue;
    const int first = out_->node_size();
    emit(id);
    type_outside_default_domain(id, first);
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
    const ir::Node& node = graph_.node(id);
    // A rotary kernel reads its tables' first halves, written as caches of their own.
    size_t read = node.op == OpKind::RotaryEmbedding && rotary_caches(id) ? 1 : node.inputs.size();
    for (size_t k = 0; k < read; ++k) {
      if (k == 2 && rewrites_known_conv_bias(id)) continue;
      stack.push_back(resolve(node.inputs[k]).node);
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
  bool conv = node.op == OpKind::Conv2d || node.op == OpKind::FusedConv;
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
    set_tensor_type(*out_->add_input(), name, type, &source_.dim_names);
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
    const ir::DType dtype = node.outputs[k].dtype;
    const size_t bytes = data->size() * static_cast<size_t>(ir::element_size(dtype));
    if (external_ != nullptr && bytes >= kExternalDataThreshold) {
      tensor.set_name(names_[id][k]);
      tensor.set_data_type(to_onnx_elem_type(dtype));
      for (int64_t d : node.outputs[k].dims) tensor.add_dims(d);
      if (dtype == ir::DType::F32) {
        external_->append(tensor, reinterpret_cast<const char*>(data->data()), bytes);
      } else {
        const std::string narrowed = float_bytes(*data, dtype);
        external_->append(tensor, narrowed.data(), narrowed.size());
      }
    } else {
      write_floats(tensor, names_[id][k], node.outputs[k].dims, *data, dtype);
    }
  }
}

namespace {

// Which file writes an operator. The switch has no default, so a new OpKind without an export
// mapping is a compile error (-Wswitch), as it was when emit() was one switch.
enum class ExportFamily {
  Nothing,
  Opaque,
  Elementwise,
  ConvOrPool,
  MatrixProduct,
  Layout,
  Normalization
};

ExportFamily export_family(OpKind op) {
  switch (op) {
    case OpKind::Input:
    case OpKind::Weight:
    case OpKind::Constant:
    case OpKind::Noop:
      return ExportFamily::Nothing;
    case OpKind::Opaque:
      return ExportFamily::Opaque;
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Div:
    case OpKind::Pow:
    case OpKind::Sqrt:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Gelu:
    case OpKind::Clip:
    case OpKind::LeakyRelu:
    case OpKind::HardSigmoid:
    case OpKind::BiasGelu:
    case OpKind::FastGelu:
    case OpKind::QuickGelu:
    case OpKind::RotaryEmbedding:
      return ExportFamily::Elementwise;
    case OpKind::Conv2d:
    case OpKind::FusedConv:
    case OpKind::PoolMax:
    case OpKind::PoolAvg:
      return ExportFamily::ConvOrPool;
    case OpKind::MatMul:
    case OpKind::FusedMatMul:
      return ExportFamily::MatrixProduct;
    case OpKind::Transpose:
    case OpKind::Enlarge:
    case OpKind::Concat:
    case OpKind::Split:
    case OpKind::Merge:
    case OpKind::Reshape:
    case OpKind::Pad:
    case OpKind::Slice:
      return ExportFamily::Layout;
    case OpKind::BatchNorm:
    case OpKind::Softmax:
    case OpKind::LayerNorm:
    case OpKind::ReduceMean:
    case OpKind::Attention:
    case OpKind::MultiHeadAttention:
    case OpKind::QkvAttention:
    case OpKind::RMSNorm:
    case OpKind::SkipLayerNorm:
    case OpKind::SkipRMSNorm:
      return ExportFamily::Normalization;
  }
  return ExportFamily::Nothing;
}

}  // namespace

bool Exporter::emit_one_node(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::OnnxOperator& onnx = ir::onnx_operator(node.op);
  if (onnx.empty()) return false;
  // Opset 20 made the tanh GELU a standard operator (emit_elementwise writes it).
  if (node.op == OpKind::FastGelu && opset_ >= 20) return false;
  std::vector<std::string> inputs;
  for (const ir::ValueRef& input : node.inputs) inputs.push_back(name_of(input));
  ::onnx::NodeProto& written = add_node(onnx.op_type, inputs, {names_[id][0]});
  if (!onnx.domain.empty()) {
    written.set_domain(onnx.domain);
    if (onnx.domain == kMicrosoftDomain) uses_microsoft_domain_ = true;
  }
  return true;
}

void Exporter::emit(NodeId id) {
  const ir::Node& node = graph_.node(id);
  if (node.op == OpKind::Input || is_alias(node)) return;
  if (known_[id]) {
    if (materialized_[id]) emit_initializer(id);
    return;
  }
  if (emit_one_node(id)) return;
  bool emitted = false;
  switch (export_family(node.op)) {
    case ExportFamily::Nothing:
      return;
    case ExportFamily::Opaque:
      emit_opaque(id);
      return;
    case ExportFamily::Elementwise:
      emitted = emit_elementwise(id);
      break;
    case ExportFamily::ConvOrPool:
      emitted = emit_conv_or_pool(id);
      break;
    case ExportFamily::MatrixProduct:
      emitted = emit_matrix_product(id);
      break;
    case ExportFamily::Layout:
      emitted = emit_layout(id);
      break;
    case ExportFamily::Normalization:
      emitted = emit_normalization(id);
      break;
  }
  if (emitted) return;
  throw Error("cannot export operator " + std::string(ir::to_string(node.op)) + " to ONNX");
}

void Exporter::type_outside_default_domain(NodeId id, int first_node) {
  // ONNX's shape inference knows no com.microsoft kernel (nor any other domain's), so the types
  // of their outputs are written: tools after Saturate (ONNX Runtime's float16 converter, shape
  // inference) would otherwise lose every type downstream of a fused kernel.
  bool other_domain = false;
  for (int k = first_node; k < out_->node_size(); ++k) {
    const std::string& domain = out_->node(k).domain();
    other_domain = other_domain || (!domain.empty() && domain != "ai.onnx");
  }
  if (!other_domain) return;
  const ir::Node& node = graph_.node(id);
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const std::string& name = names_[id][k];
    if (name.empty() || output_names_.contains(name)) continue;
    set_tensor_type(*out_->add_value_info(), name, node.outputs[k], &source_.dim_names);
  }
}

void Exporter::add_outputs() {
  for (const auto& output : graph_.outputs()) {
    ValueRef v = resolve(output.value);
    const std::string& name = name_of(v);
    if (name != output.name) add_node("Identity", {name}, {output.name});
    set_tensor_type(*out_->add_output(), output.name, graph_.type(v), &source_.dim_names);
  }
}

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
  // model.onnx + its data file: the data is written while the initializers are emitted, and the
  // pair becomes visible in one step once the model serialized (onnx/model_with_data_output.h).
  ModelWithDataOutput output(path, source.external_files);
  ExternalDataWriter external(output.data_temporary(), output.location());
  std::string bytes = with_protobuf_log(graph, [&] {
    ModelProto model = Exporter(graph, source, &external).run();
    return serialize_model(model, graph, /*external_data=*/true);
  });
  external.finish();
  output.commit(bytes);
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
