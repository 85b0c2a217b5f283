// ONNX -> IR: one mapping per ONNX operator, opaque nodes for everything else.
#include "onnx/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "onnx/constant_folding.h"
#include "onnx/external_data.h"
#include "onnx/host_tensor.h"
#include "onnx/input_shapes.h"
#include "onnx/model_validation.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_tensor_data.h"
#include "onnx/opaque_capsule.h"
#include "onnx/protobuf_log.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::AttributeProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 21;

// Thrown by a mapping that finds attributes the IR cannot express: the node becomes opaque.
struct NotExpressible {};

const char* kDynamicHint =
    "give it a static value (e.g. onnxsim or onnx.shape_inference with fixed input dims)";

void require(bool condition) {
  if (!condition) throw NotExpressible{};
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  require(axis >= -rank && axis < rank);
  return axis < 0 ? axis + rank : axis;
}

// Padding of a sliding window along one axis, as the IR's SAME computes it (extra at the end).
// validate_model bounds kernel and stride by 2^40 and sizes are at most 2^40: no overflow.
std::pair<int64_t, int64_t> same_pads(int64_t size, int64_t kernel, int64_t stride) {
  int64_t out = (size - 1) / stride + 1;  // ceil(size / stride)
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

// How an ONNX window's padding maps to the IR.
enum class WindowPadding { Valid, Same, Explicit };

struct WindowSpec {
  std::vector<int64_t> kernel;   // 2
  std::vector<int64_t> strides;  // 2
  std::vector<int64_t> pads;     // [top, left, bottom, right]
  WindowPadding padding = WindowPadding::Valid;
};

// Reads kernel_shape / strides / pads / auto_pad / dilations of a 2-D Conv or Pool node over an
// NCHW input of `dims`; `kernel` is the weight's spatial size for Conv.
WindowSpec window_spec(const NodeProto& node, const ir::Dims& dims,
                       std::optional<std::vector<int64_t>> kernel) {
  require(dims.size() == 4);
  WindowSpec spec;
  auto kernel_attr = attr_ints(node, "kernel_shape");
  if (kernel) {
    require(!kernel_attr || *kernel_attr == *kernel);
    spec.kernel = *kernel;
  } else {
    require(kernel_attr && kernel_attr->size() == 2);
    spec.kernel = *kernel_attr;
  }
  spec.strides = attr_ints(node, "strides").value_or(std::vector<int64_t>{1, 1});
  require(spec.strides.size() == 2 && spec.strides[0] > 0 && spec.strides[1] > 0);
  auto dilations = attr_ints(node, "dilations").value_or(std::vector<int64_t>{1, 1});
  require(dilations == std::vector<int64_t>({1, 1}));
  require(attr_int(node, "ceil_mode", 0) == 0);
  std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<int64_t> upper(4);
  for (int axis = 0; axis < 2; ++axis) {
    auto [begin, end] = same_pads(dims[2 + axis], spec.kernel[axis], spec.strides[axis]);
    upper[axis] = begin;
    upper[axis + 2] = end;
  }
  if (auto_pad == "VALID") {
    spec.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER") {
    spec.pads = upper;
  } else if (auto_pad == "SAME_LOWER") {
    spec.pads = {upper[2], upper[3], upper[0], upper[1]};
  } else {
    require(auto_pad == "NOTSET");
    spec.pads = attr_ints(node, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
    require(spec.pads.size() == 4);
  }
  for (int64_t p : spec.pads) require(p >= 0);
  bool same = spec.pads == upper;
  for (int axis = 0; same && axis < 2; ++axis) {
    // ONNX's output size with these pads must be the IR's SAME size, ceil(size / stride).
    int64_t size = dims[2 + axis];
    int64_t onnx_out =
        (size + spec.pads[axis] + spec.pads[axis + 2] - spec.kernel[axis]) / spec.strides[axis] + 1;
    same = onnx_out == (size + spec.strides[axis] - 1) / spec.strides[axis];
  }
  if (spec.pads == std::vector<int64_t>{0, 0, 0, 0}) {
    spec.padding = WindowPadding::Valid;
  } else if (same) {
    spec.padding = WindowPadding::Same;
  } else {
    spec.padding = WindowPadding::Explicit;
  }
  return spec;
}

// Every name a node's subgraphs (recursively) define.
void add_subgraph_names(const NodeProto& node, std::set<std::string>& names) {
  for (const auto* g : subgraphs_of(node)) {
    for (const auto& info : g->input()) names.insert(info.name());
    for (const auto& tensor : g->initializer()) names.insert(tensor.name());
    for (const auto& inner : g->node()) {
      for (const auto& name : inner.output()) names.insert(name);
      add_subgraph_names(inner, names);
    }
  }
}

// Whether inference gave a value an element type and every dimension.
bool fully_typed(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return false;
  if (type.tensor_type().elem_type() == TensorProto::UNDEFINED) return false;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return false;
  }
  return true;
}

// The default-domain opset the model imports, checked against what Saturate reads.
int64_t default_opset(const ModelProto& model, const std::string& source) {
  std::optional<int64_t> opset;
  for (const auto& entry : model.opset_import()) {
    if (is_default_domain(entry.domain())) opset = entry.version();
  }
  if (!opset) throw Error(source + ": the model imports no default-domain (ai.onnx) opset");
  if (*opset < kMinOpset || *opset > kMaxOpset) {
    throw Error(source + ": default-domain opset " + std::to_string(*opset) +
                " is not supported (Saturate reads " + std::to_string(kMinOpset) + " to " +
                std::to_string(kMaxOpset) + "; convert it with onnx.version_converter)");
  }
  return *opset;
}

class Importer {
 public:
  // Takes the initializers' data out of `model` as it reads them (no second copy of the weights).
  // `types`: what shape inference gave the model's values (constant folding ran it last).
  Importer(ModelProto& model, std::string source, std::map<std::string, ::onnx::TypeProto> types)
      : model_(model), source_(std::move(source)), value_types_(types.begin(), types.end()) {}

  OnnxModel run();

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(source_ + ": " + message);
  }

  void read_header();
  void collect_names();
  void add_inputs();
  void add_initializer(TensorProto& tensor);
  void import_node(const NodeProto& node);
  void check_input_types(const NodeProto& node) const;
  std::optional<int32_t> elem_type_of(const std::string& name) const;
  bool is_same_type_cast(const NodeProto& node) const;
  void import_opaque(const NodeProto& node);
  void infer_locally_if_untyped(const NodeProto& node);
  void type_from_subgraph_outputs(const NodeProto& node);
  bool import_known(const NodeProto& node);
  void add_outputs();

  // Mappings, one per ONNX operator family; each throws NotExpressible before adding anything
  // to the graph when the node must stay opaque.
  void import_conv(const NodeProto& node);
  void import_pool(const NodeProto& node, bool max);
  void import_gemm(const NodeProto& node);
  void import_split(const NodeProto& node);
  void import_reshape_like(const NodeProto& node);
  void import_clip(const NodeProto& node);

  // Values.
  bool has_input(const NodeProto& node, int index) const {
    return index < node.input_size() && !node.input(index).empty();
  }
  ValueRef input(const NodeProto& node, int index) const;
  const ir::Dims& dims(ValueRef value) const { return graph().type(value).dims; }
  std::optional<std::vector<int64_t>> constant_ints(const NodeProto& node, int index) const;
  std::optional<double> constant_scalar(const NodeProto& node, int index) const;
  // Whether an output is used by a later node or the graph (optional outputs often are not).
  bool used(const NodeProto& node, int index) const {
    return index < node.output_size() && !node.output(index).empty() &&
           used_names_.contains(node.output(index));
  }

  ir::Graph& graph() { return result_.graph; }
  const ir::Graph& graph() const { return result_.graph; }
  std::string fresh(const std::string& base);
  ValueRef add(OpKind op, std::vector<ValueRef> inputs, const ir::Attributes& attrs,
               const std::string& name);
  ValueRef add_constant(double value, const std::string& base);
  ValueRef reshape(ValueRef value, const ir::Dims& shape, const std::string& name);
  ir::TensorType static_type(const std::string& value, const NodeProto* producer) const;

  ModelProto& model_;
  std::string source_;
  OnnxModel result_;
  std::unordered_map<std::string, ValueRef> values_;
  std::unordered_map<std::string, TensorProto> other_constants_;  // non-float constants
  std::unordered_map<std::string, ::onnx::TypeProto> value_types_;
  std::set<std::string> onnx_names_;  // every name the ONNX graph defines
  std::set<std::string> used_names_;  // every name a node or the graph output reads
};

OnnxModel Importer::run() {
  read_header();
  collect_names();
  const auto& g = model_.graph();
  for (auto& tensor : *model_.mutable_graph()->mutable_initializer()) add_initializer(tensor);
  add_inputs();
  for (const auto& node : g.node()) import_node(node);
  add_outputs();
  result_.from_onnx = true;
  return std::move(result_);
}

void Importer::read_header() {
  if (!model_.has_graph()) fail("not an ONNX model: it has no graph");
  for (const auto& entry : model_.opset_import()) {
    if (!is_default_domain(entry.domain())) result_.domain_opsets[entry.domain()] = entry.version();
  }
  std::optional<int64_t> opset = default_opset(model_, source_);
  result_.opset = *opset;
  result_.ir_version = model_.ir_version();
  result_.producer_name = model_.producer_name();
  result_.producer_version = model_.producer_version();
  result_.model_domain = model_.domain();
  result_.model_version = model_.model_version();
  result_.doc_string = model_.doc_string();
  result_.graph_name = model_.graph().name();
  for (const auto& prop : model_.metadata_props()) {
    result_.metadata.emplace_back(prop.key(), prop.value());
  }
  std::string name = model_.graph().name();
  if (name.empty()) name = std::filesystem::path(source_).stem().string();
  if (name.empty()) name = "onnx_model";
  result_.graph.set_name(name);
}

void Importer::collect_names() {
  const auto& g = model_.graph();
  for (const auto& info : g.input()) onnx_names_.insert(info.name());
  for (const auto& tensor : g.initializer()) onnx_names_.insert(tensor.name());
  for (const auto& node : g.node()) {
    for (const auto& name : node.output()) onnx_names_.insert(name);
    for (const auto& name : node.input()) used_names_.insert(name);
    // Control flow reads outer values inside its subgraphs: those count as uses, and the names
    // the subgraphs define are taken.
    for (const auto& name : outer_references(node)) used_names_.insert(name);
    add_subgraph_names(node, onnx_names_);
  }
  for (const auto& info : g.output()) used_names_.insert(info.name());
}

ir::TensorType Importer::static_type(const std::string& value, const NodeProto* producer) const {
  std::string where = producer != nullptr ? " (" + describe(*producer) + ")" : " (graph input)";
  auto it = value_types_.find(value);
  if (it == value_types_.end() || !it->second.has_tensor_type()) {
    fail("dynamic shape for value " + value + where + ": its type is unknown; " + kDynamicHint);
  }
  const auto& tensor = it->second.tensor_type();
  auto dtype = to_ir_dtype(tensor.elem_type());
  if (!dtype) {
    fail("value " + value + where + " has element type " + data_type_name(tensor.elem_type()) +
         ", which Saturate does not carry (it carries " + ir::dtype_names() + ")");
  }
  if (!tensor.has_shape()) fail("dynamic shape for value " + value + where + ": " + kDynamicHint);
  ir::TensorType type{*dtype, {}};
  for (const auto& dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) {
      std::string symbol = dim.has_dim_param() ? " '" + dim.dim_param() + "'" : "";
      if (dim.has_dim_value() && dim.dim_value() == 0) symbol = " of size 0";
      fail("dynamic shape for value " + value + where + " (dimension" + symbol +
           "): " + kDynamicHint);
    }
    type.dims.push_back(dim.dim_value());
  }
  return type;
}

void Importer::add_inputs() {
  for (const auto& info : model_.graph().input()) {
    if (values_.contains(info.name()) || other_constants_.contains(info.name())) {
      continue;  // an initializer listed as an input (IR version < 4 style)
    }
    ir::TensorType type = static_type(info.name(), nullptr);
    values_[info.name()] = graph().add_input(info.name(), type.dims, type.dtype);
    result_.input_names.push_back(info.name());
  }
}

void Importer::add_initializer(TensorProto& tensor) {
  const std::string what = "initializer " + tensor.name();
  if (tensor.name().empty()) fail("an initializer has no name");
  if (!is_float_tensor(tensor)) {
    other_constants_[tensor.name()] = tensor;
    return;
  }
  try {
    std::vector<float> data = read_floats(tensor, what);
    std::string().swap(*tensor.mutable_raw_data());  // the floats are the IR's copy now
    tensor.clear_float_data();
    ir::Dims dims = tensor_dims(tensor);
    if (data.size() == 1) {
      values_[tensor.name()] = {
          graph().add_node(OpKind::Constant, {}, {{"shape", dims}, {"value", double{data[0]}}},
                           {tensor.name()}),
          0};
      return;
    }
    values_[tensor.name()] = graph().add_weight(tensor.name(), dims);
    result_.weights[tensor.name()] = std::move(data);
  } catch (const Error& error) {
    fail(error.what());
  }
}

ValueRef Importer::input(const NodeProto& node, int index) const {
  if (!has_input(node, index)) throw NotExpressible{};
  const std::string& name = node.input(index);
  auto it = values_.find(name);
  // The IR's operators compute on float32 values; anything else stays an opaque ONNX node.
  if (it != values_.end()) {
    require(graph().type(it->second).dtype == ir::DType::F32);
    return it->second;
  }
  if (other_constants_.contains(name)) throw NotExpressible{};
  fail("unknown value name " + name + " (input of " + describe(node) +
       "): no graph input, initializer or earlier node defines it");
}

std::optional<std::vector<int64_t>> Importer::constant_ints(const NodeProto& node,
                                                            int index) const {
  if (!has_input(node, index)) return std::nullopt;
  auto it = other_constants_.find(node.input(index));
  if (it == other_constants_.end() || !is_integer_tensor(it->second)) throw NotExpressible{};
  return read_ints(it->second, "constant " + node.input(index));
}

std::optional<double> Importer::constant_scalar(const NodeProto& node, int index) const {
  if (!has_input(node, index)) return std::nullopt;
  ValueRef value = input(node, index);
  const ir::Node& producer = graph().node(value.node);
  if (producer.op == OpKind::Constant) return producer.attrs.get_float("value");
  if (producer.op == OpKind::Weight) {
    const auto& data = result_.weights.at(producer.name());
    if (data.size() == 1) return data[0];
  }
  throw NotExpressible{};
}

std::string Importer::fresh(const std::string& base) {
  std::string name = base;
  for (int suffix = 1; onnx_names_.contains(name) || graph().find_value(name); ++suffix) {
    name = base + "." + std::to_string(suffix);
  }
  return name;
}

ValueRef Importer::add(OpKind op, std::vector<ValueRef> inputs, const ir::Attributes& attrs,
                       const std::string& name) {
  return {graph().add_node(op, std::move(inputs), attrs, {name}), 0};
}

ValueRef Importer::add_constant(double value, const std::string& base) {
  return add(OpKind::Constant, {}, {{"shape", ir::Dims{}}, {"value", value}}, fresh(base));
}

ValueRef Importer::reshape(ValueRef value, const ir::Dims& shape, const std::string& name) {
  return add(OpKind::Reshape, {value}, {{"shape", shape}}, name);
}

// A Cast to the element type its input already has (the TorchScript exporter writes one around
// every `.to(torch.float32)` of a float model) is the identity.
bool Importer::is_same_type_cast(const NodeProto& node) const {
  if (node.op_type() != "Cast" || !is_default_domain(node.domain()) || !has_input(node, 0)) {
    return false;
  }
  auto type = elem_type_of(node.input(0));
  return type && attr_int(node, "to", -1) == *type;
}

std::optional<int32_t> Importer::elem_type_of(const std::string& name) const {
  if (auto it = values_.find(name); it != values_.end()) {
    return to_onnx_elem_type(graph().type(it->second).dtype);
  }
  if (auto it = other_constants_.find(name); it != other_constants_.end()) {
    return it->second.data_type();
  }
  return std::nullopt;
}

void Importer::check_input_types(const NodeProto& node) const {
  // What ONNX's type constraints say of the operators models use most: inputs that share one
  // type variable, and operators defined on floating-point tensors only. ONNX Runtime would
  // refuse such a model when it loads it; the message names the node instead.
  static const std::set<std::string> same_type = {
      "Add",    "Sub",   "Mul",  "Div",     "MatMul",      "Gemm",
      "Concat", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
      "Sum",    "Min",   "Max",  "Mean",    "PRelu"};
  static const std::set<std::string> float_only = {"Conv",
                                                   "ConvTranspose",
                                                   "Softmax",
                                                   "LogSoftmax",
                                                   "LayerNormalization",
                                                   "BatchNormalization",
                                                   "InstanceNormalization",
                                                   "Sqrt",
                                                   "Exp",
                                                   "Log",
                                                   "Erf",
                                                   "Gelu",
                                                   "Sigmoid",
                                                   "Tanh",
                                                   "AveragePool",
                                                   "GlobalAveragePool",
                                                   "Reciprocal",
                                                   "Sin",
                                                   "Cos",
                                                   "HardSigmoid",
                                                   "HardSwish",
                                                   "Elu",
                                                   "Selu",
                                                   "Softplus"};
  if (!is_default_domain(node.domain())) return;
  const std::string& op = node.op_type();
  if (float_only.contains(op) && has_input(node, 0)) {
    auto type = elem_type_of(node.input(0));
    auto dtype = type ? to_ir_dtype(*type) : std::nullopt;
    if (type && !(dtype && ir::is_floating(*dtype))) {
      fail(describe(node) + ": input " + node.input(0) + " has element type " +
           data_type_name(*type) + ", but " + op + " takes floating-point tensors only");
    }
  }
  if (same_type.contains(op)) {
    std::optional<int32_t> first;
    std::string first_name;
    int count = op == "Gemm" ? std::min(node.input_size(), 2) : node.input_size();
    for (int k = 0; k < count; ++k) {
      if (!has_input(node, k)) continue;
      auto type = elem_type_of(node.input(k));
      if (!type) continue;
      if (!first) {
        first = type;
        first_name = node.input(k);
      } else if (*type != *first) {
        fail(describe(node) + ": input " + node.input(k) + " has element type " +
             data_type_name(*type) + " and input " + first_name + " has " + data_type_name(*first) +
             "; " + op + " needs one element type for both");
      }
    }
  }
}

void Importer::import_node(const NodeProto& node) {
  check_input_types(node);
  KnownValues known{[this](const std::string& name) -> std::optional<ir::Dims> {
                      if (auto it = values_.find(name); it != values_.end())
                        return dims(it->second);
                      if (auto it = other_constants_.find(name); it != other_constants_.end()) {
                        return tensor_dims(it->second);
                      }
                      return std::nullopt;
                    },
                    [this](const std::string& name) -> std::optional<std::vector<int64_t>> {
                      auto it = other_constants_.find(name);
                      if (it == other_constants_.end() || !is_integer_tensor(it->second))
                        return std::nullopt;
                      if (it->second.data_location() == TensorProto::EXTERNAL) return std::nullopt;
                      return read_ints(it->second, "constant " + name);
                    }};
  try {
    validate_node_shapes(node, known);
  } catch (const Error& error) {
    fail(error.what());
  }
  for (int k = 0; k < node.output_size(); ++k) {
    // An output nobody reads is dropped, unless it is the only one.
    if (node.output(k).empty() && node.output_size() == 1) fail(describe(node) + " has no output");
  }
  bool mapped = false;
  if (is_default_domain(node.domain())) {
    try {
      mapped = import_known(node);
    } catch (const NotExpressible&) {
      mapped = false;
    } catch (const Error& error) {
      std::string message = error.what();
      if (message.rfind(source_ + ": ", 0) == 0) throw;
      fail(describe(node) + ": " + message);
    }
  }
  if (!mapped) {
    import_opaque(node);
    return;
  }
  // Mapped operators name their last IR node after the ONNX output (aliases are already set).
  for (const auto& name : node.output()) {
    if (name.empty() || values_.contains(name) || other_constants_.contains(name)) continue;
    if (auto value = graph().find_value(name)) values_[name] = *value;
  }
}

void Importer::infer_locally_if_untyped(const NodeProto& node) {
  bool untyped = false;
  for (int k = 0; k < node.output_size(); ++k) {
    if (!used(node, k)) continue;
    auto it = value_types_.find(node.output(k));
    if (it == value_types_.end() || !fully_typed(it->second)) untyped = true;
  }
  if (!untyped) return;
  // Whole-model inference stops typing values past an operator the ONNX library does not know
  // (a newer opset's Gelu, say, which the IR maps itself). Typed inputs are known here: infer
  // this one node on its own, with small constant inputs given by value for data-dependent
  // shapes (Reshape, Expand).
  // The ONNX library may know an older opset than the model's (Debian's 1.12 knows 17): the
  // node is inferred under the newest opset it knows, unless its operator changed after that.
  static const std::set<std::string> changed_after_17 = {"ReduceMax",
                                                         "ReduceMin",
                                                         "ReduceSum",
                                                         "ReduceMean",
                                                         "ReduceProd",
                                                         "ReduceL1",
                                                         "ReduceL2",
                                                         "ReduceLogSum",
                                                         "ReduceLogSumExp",
                                                         "ReduceSumSquare",
                                                         "Split",
                                                         "Pad",
                                                         "Resize",
                                                         "Col2Im",
                                                         "CenterCropPad",
                                                         "GroupNormalization",
                                                         "DFT",
                                                         "AffineGrid",
                                                         "Gelu",
                                                         "ConstantOfShape",
                                                         "DeformConv",
                                                         "ImageDecoder",
                                                         "RegexFullMatch",
                                                         "StringSplit"};
  const auto& ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int64_t known = ranges.contains("") ? ranges.at("").second : result_.opset;
  if (is_default_domain(node.domain()) && result_.opset > known &&
      changed_after_17.contains(node.op_type())) {
    return;
  }
  ModelProto single;
  single.set_ir_version(model_.ir_version());
  *single.mutable_opset_import() = model_.opset_import();
  for (auto& entry : *single.mutable_opset_import()) {
    if (is_default_domain(entry.domain())) entry.set_version(std::min(entry.version(), known));
  }
  auto* g = single.mutable_graph();
  g->set_name("node");
  *g->add_node() = node;
  std::set<std::string> declared;
  std::vector<std::string> read = {node.input().begin(), node.input().end()};
  for (const auto& name : outer_references(node)) read.push_back(name);
  for (const auto& name : read) {
    if (name.empty() || !declared.insert(name).second) continue;
    if (auto it = other_constants_.find(name); it != other_constants_.end()) {
      *g->add_initializer() = it->second;
      continue;
    }
    auto value = values_.find(name);
    if (value == values_.end()) continue;
    const ir::TensorType& type = graph().type(value->second);
    auto* info = g->add_input();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(to_onnx_elem_type(type.dtype));
    auto* shape = tensor->mutable_shape();  // present even for a scalar: rank 0 is known
    for (int64_t d : type.dims) shape->add_dim()->set_dim_value(d);
  }
  try {
    // No data propagation: nothing upstream to propagate in a one-node model, and ONNX 1.12's
    // can dereference a null type (fuzz_onnx_import).
    ::onnx::shape_inference::InferShapes(single, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    // Left untyped unless the subgraphs declare the types (below); static_type names the value.
  }
  for (const auto& info : single.graph().value_info()) {
    if (fully_typed(info.type())) value_types_[info.name()] = info.type();
  }
  type_from_subgraph_outputs(node);
}

void Importer::type_from_subgraph_outputs(const NodeProto& node) {
  // If: both branches declare an output's type; Loop: the body declares a loop-carried value's
  // type (its scan outputs grow by the trip count, which stays unknown).
  auto declared = [](const ::onnx::GraphProto& g, int k) -> const ::onnx::TypeProto* {
    if (k >= g.output_size() || !fully_typed(g.output(k).type())) return nullptr;
    return &g.output(k).type();
  };
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string& name = node.output(k);
    if (name.empty()) continue;
    if (auto it = value_types_.find(name); it != value_types_.end() && fully_typed(it->second)) {
      continue;
    }
    const ::onnx::TypeProto* type = nullptr;
    if (node.op_type() == "If") {
      const auto* then_branch = find_attr(node, "then_branch");
      const auto* else_branch = find_attr(node, "else_branch");
      if (then_branch == nullptr || else_branch == nullptr) return;
      type = declared(then_branch->g(), k);
      const auto* other = declared(else_branch->g(), k);
      if (type == nullptr || other == nullptr ||
          type->SerializeAsString() != other->SerializeAsString()) {
        type = nullptr;
      }
    } else if (node.op_type() == "Loop") {
      const auto* body = find_attr(node, "body");
      int carried = node.input_size() - 2;
      if (body == nullptr || k >= carried) continue;
      type = declared(body->g(), k + 1);
    }
    if (type != nullptr) value_types_[name] = *type;
  }
}

void Importer::import_opaque(const NodeProto& node) {
  OpaqueCapsule capsule;
  *capsule.node.mutable_attribute() = node.attribute();
  std::vector<ValueRef> inputs;
  std::set<std::string> embedded;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      capsule.node.add_input("");
    } else if (auto it = values_.find(name); it != values_.end()) {
      capsule.node.add_input(kIrValueMarker);
      inputs.push_back(it->second);
    } else if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      capsule.node.add_input(name);
      if (embedded.insert(name).second) capsule.constants.push_back(other->second);
    } else {
      fail("unknown value name " + name + " (input of " + describe(node) +
           "): no graph input, initializer or earlier node defines it");
    }
  }
  for (const auto& name : outer_references(node)) {
    capsule.implicit_inputs.push_back(name);
    if (auto it = values_.find(name); it != values_.end()) {
      inputs.push_back(it->second);
    } else if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      capsule.implicit_inputs.pop_back();  // embedded under its own name, which export keeps
      if (embedded.insert(name).second) capsule.constants.push_back(other->second);
    } else {
      fail("unknown value name " + name + " (read inside a subgraph of " + describe(node) +
           "): no graph input, initializer or earlier node defines it");
    }
  }
  std::vector<std::string> names;
  std::string types;
  infer_locally_if_untyped(node);
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty()) {
      capsule.node.add_output("");
    } else if (!used(node, k)) {
      capsule.node.add_output(kUnusedOutputMarker);  // written back under a fresh name
    } else {
      capsule.node.add_output(kIrValueMarker);
      names.push_back(node.output(k));
      ir::TensorType type = static_type(node.output(k), &node);
      types += (types.empty() ? "" : ";") + ir::to_string(type);
    }
  }
  if (names.empty()) return;  // nothing reads it: dropped
  uint64_t capsule_bytes = capsule.node.ByteSizeLong();
  for (const auto& constant : capsule.constants) capsule_bytes += constant.ByteSizeLong();
  if (capsule_bytes > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    fail(describe(node) + ": its attributes and constant inputs take " +
         std::to_string(capsule_bytes) +
         " bytes, past protobuf's 2 GB limit for the opaque node that carries them");
  }
  ir::Attributes attrs{{"op_type", node.op_type()},
                       {"domain", node.domain()},
                       {"onnx_attributes", encode_capsule(capsule)},
                       {"output_types", types}};
  ir::NodeId id = 0;
  try {
    id = graph().add_node(OpKind::Opaque, std::move(inputs), attrs, names);
  } catch (const Error& error) {
    fail(describe(node) + ": " + error.what());
  }
  for (size_t k = 0; k < names.size(); ++k) values_[names[k]] = {id, static_cast<uint32_t>(k)};
}

bool Importer::import_known(const NodeProto& node) {
  const std::string& op = node.op_type();
  const int64_t opset = result_.opset;
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  // Extra outputs must be unread (Dropout's mask, BatchNormalization's running statistics...).
  for (int k = 1; k < node.output_size(); ++k) {
    if (op != "Split") require(!used(node, k));
  }
  static const std::unordered_map<std::string, OpKind> unary = {
      {"Relu", OpKind::Relu}, {"Sigmoid", OpKind::Sigmoid}, {"Tanh", OpKind::Tanh},
      {"Erf", OpKind::Erf},   {"Sqrt", OpKind::Sqrt},       {"Exp", OpKind::Exp}};
  if (auto it = unary.find(op); it != unary.end()) {
    ValueRef x = input(node, 0);
    add(it->second, {x}, {}, out());
    return true;
  }
  static const std::unordered_map<std::string, OpKind> binary = {{"Add", OpKind::Add},
                                                                 {"Mul", OpKind::Mul},
                                                                 {"Sub", OpKind::Sub},
                                                                 {"Div", OpKind::Div},
                                                                 {"Pow", OpKind::Pow}};
  if (auto it = binary.find(op); it != binary.end()) {
    ValueRef a = input(node, 0);
    ValueRef b = input(node, 1);
    OpKind kind = it->second;
    // Equal shapes take TENSAT's element-wise operators, which its rules are written for.
    if (dims(a) == dims(b) && kind == OpKind::Add) kind = OpKind::EwAdd;
    if (dims(a) == dims(b) && kind == OpKind::Mul) kind = OpKind::EwMul;
    add(kind, {a, b}, {}, out());
    return true;
  }
  if (op == "Identity" || op == "Dropout" || is_same_type_cast(node)) {
    // Aliases of a value of any type.
    require(has_input(node, 0));
    const std::string& name = node.input(0);
    if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      other_constants_[out()] = other->second;
    } else if (auto value = values_.find(name); value != values_.end()) {
      values_[out()] = value->second;
    } else {
      input(node, 0);  // the unknown-name error
    }
    return true;
  }
  if (op == "Conv") {
    import_conv(node);
    return true;
  }
  if (op == "MaxPool" || op == "AveragePool") {
    import_pool(node, op == "MaxPool");
    return true;
  }
  if (op == "GlobalAveragePool") {
    ValueRef x = input(node, 0);
    require(dims(x).size() >= 3);
    std::vector<int64_t> axes;
    for (int64_t a = 2; a < static_cast<int64_t>(dims(x).size()); ++a) axes.push_back(a);
    add(OpKind::ReduceMean, {x}, {{"axes", axes}, {"keepdims", int64_t{1}}}, out());
    return true;
  }
  if (op == "Gemm") {
    import_gemm(node);
    return true;
  }
  if (op == "MatMul") {
    ValueRef a = input(node, 0);
    ValueRef b = input(node, 1);
    require(dims(a).size() >= 2 && dims(b).size() >= 2);
    add(OpKind::MatMul, {a, b}, {}, out());
    return true;
  }
  if (op == "Softmax") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", opset < 13 ? 1 : -1), rank);
    // Before opset 13 Softmax flattens the axes from `axis` on: one axis only when it is last.
    require(opset >= 13 || axis == rank - 1);
    add(OpKind::Softmax, {x}, {{"axis", axis}}, out());
    return true;
  }
  if (op == "Gelu") {
    require(attr_string(node, "approximate", "none") == "none");
    add(OpKind::Gelu, {input(node, 0)}, {}, out());
    return true;
  }
  if (op == "Clip") {
    import_clip(node);
    return true;
  }
  if (op == "LayerNormalization") {
    ValueRef x = input(node, 0);
    ValueRef scale = input(node, 1);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank);
    ir::Dims normalized(dims(x).begin() + axis, dims(x).end());
    require(dims(scale) == normalized);
    ValueRef bias;
    if (has_input(node, 2)) {
      bias = input(node, 2);
      require(dims(bias) == normalized);
    } else {
      bias = add(OpKind::Constant, {}, {{"shape", normalized}, {"value", 0.0}},
                 fresh(out() + "_zero_bias"));
    }
    add(OpKind::LayerNorm, {x, scale, bias},
        {{"axis", axis}, {"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}}, out());
    return true;
  }
  if (op == "SimplifiedLayerNormalization") {
    // ONNX Runtime's RMSNorm, in the default domain (what --target onnxruntime writes).
    require(attr_int(node, "stash_type", 1) == 1);
    ValueRef x = input(node, 0);
    ValueRef scale = input(node, 1);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank);
    require(dims(scale) == ir::Dims(dims(x).begin() + axis, dims(x).end()));
    add(OpKind::RMSNorm, {x, scale},
        {{"axis", axis}, {"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}}, out());
    return true;
  }
  if (op == "BatchNormalization") {
    require(attr_int(node, "training_mode", 0) == 0);
    ValueRef x = input(node, 0);
    require(dims(x).size() >= 2);
    std::vector<ValueRef> inputs{x};
    for (int k = 1; k < 5; ++k) {
      inputs.push_back(input(node, k));
      require(dims(inputs.back()) == ir::Dims{dims(x)[1]});
    }
    add(OpKind::BatchNorm, inputs, {{"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}},
        out());
    return true;
  }
  if (op == "Concat") {
    std::vector<ValueRef> inputs;
    for (int k = 0; k < node.input_size(); ++k) inputs.push_back(input(node, k));
    require(!inputs.empty());
    int64_t axis =
        normalize_axis(attr_int(node, "axis", 0), static_cast<int64_t>(dims(inputs[0]).size()));
    add(OpKind::Concat, inputs, {{"axis", axis}}, out());
    return true;
  }
  if (op == "Split") {
    import_split(node);
    return true;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    import_reshape_like(node);
    return true;
  }
  if (op == "Transpose") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    std::vector<int64_t> perm;
    for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
    perm = attr_ints(node, "perm").value_or(perm);
    add(OpKind::Transpose, {x}, {{"perm", perm}}, out());
    return true;
  }
  if (op == "ReduceMean") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    std::optional<std::vector<int64_t>> axes =
        opset >= 18 ? constant_ints(node, 1) : attr_ints(node, "axes");
    if (!axes || axes->empty()) {
      if (opset >= 18 && attr_int(node, "noop_with_empty_axes", 0) == 1) {
        values_[out()] = x;
        return true;
      }
      axes = std::vector<int64_t>{};
      for (int64_t a = 0; a < rank; ++a) axes->push_back(a);
    }
    for (int64_t& a : *axes) a = normalize_axis(a, rank);
    add(OpKind::ReduceMean, {x}, {{"axes", *axes}, {"keepdims", attr_int(node, "keepdims", 1)}},
        out());
    return true;
  }
  if (op == "Pad") {
    ValueRef x = input(node, 0);
    require(attr_string(node, "mode", "constant") == "constant");
    require(!has_input(node, 3));  // axes (opset 18)
    if (has_input(node, 2)) require(constant_scalar(node, 2) == 0.0);
    auto pads = constant_ints(node, 1);
    require(pads && pads->size() == 2 * dims(x).size());
    for (int64_t p : *pads) require(p >= 0);
    add(OpKind::Pad, {x}, {{"pads", *pads}}, out());
    return true;
  }
  return false;
}

void Importer::import_conv(const NodeProto& node) {
  ValueRef x = input(node, 0);
  ValueRef w = input(node, 1);
  const ir::Dims& xd = dims(x);
  const ir::Dims& wd = dims(w);
  require(xd.size() == 4 && wd.size() == 4);
  int64_t group = attr_int(node, "group", 1);
  require(group >= 1 && wd[1] * group == xd[1] && wd[0] % group == 0);
  WindowSpec spec = window_spec(node, xd, std::vector<int64_t>{wd[2], wd[3]});
  std::optional<ValueRef> bias;
  if (has_input(node, 2)) {
    bias = input(node, 2);
    require(dims(*bias) == ir::Dims{wd[0]});
  }
  const std::string& name = node.output(0);
  if (spec.padding == WindowPadding::Explicit) {
    x = add(OpKind::Pad, {x},
            {{"pads", std::vector<int64_t>{0, 0, spec.pads[0], spec.pads[1], 0, 0, spec.pads[2],
                                           spec.pads[3]}}},
            fresh(name + "_pad"));
  }
  ir::Padding padding =
      spec.padding == WindowPadding::Same ? ir::Padding::Same : ir::Padding::Valid;
  ir::Attributes attrs{{"stride_h", spec.strides[0]},
                       {"stride_w", spec.strides[1]},
                       {"padding", static_cast<int64_t>(padding)}};
  if (!bias) {
    add(OpKind::Conv2d, {x, w}, attrs, name);
    return;
  }
  ValueRef conv = add(OpKind::Conv2d, {x, w}, attrs, fresh(name + "_conv"));
  ValueRef b = reshape(*bias, {wd[0], 1, 1}, fresh(node.input(2) + "_nchw"));
  add(OpKind::Add, {conv, b}, {}, name);
}

void Importer::import_pool(const NodeProto& node, bool max) {
  ValueRef x = input(node, 0);
  WindowSpec spec = window_spec(node, dims(x), std::nullopt);
  ir::Attributes attrs{{"kernel_h", spec.kernel[0]},
                       {"kernel_w", spec.kernel[1]},
                       {"stride_h", spec.strides[0]},
                       {"stride_w", spec.strides[1]}};
  const std::string& name = node.output(0);
  OpKind kind = max ? OpKind::PoolMax : OpKind::PoolAvg;
  bool count_padding = !max && attr_int(node, "count_include_pad", 0) == 1;
  // The IR's SAME pools ignore the padding (max: it never wins; average: in-bounds elements
  // only), which is ONNX's MaxPool and AveragePool with count_include_pad = 0. Explicit zero
  // padding is exact only for an average that counts the padding; max pooling over explicit
  // pads stays opaque (ONNX pads with -inf there, a zero pad would win over negative values).
  if (spec.padding == WindowPadding::Valid) {
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Valid));
  } else if (spec.padding == WindowPadding::Same && !count_padding) {
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Same));
  } else {
    require(count_padding);
    x = add(OpKind::Pad, {x},
            {{"pads", std::vector<int64_t>{0, 0, spec.pads[0], spec.pads[1], 0, 0, spec.pads[2],
                                           spec.pads[3]}}},
            fresh(name + "_pad"));
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Valid));
  }
  add(kind, {x}, attrs, name);
}

void Importer::import_gemm(const NodeProto& node) {
  ValueRef a = input(node, 0);
  ValueRef b = input(node, 1);
  require(dims(a).size() == 2 && dims(b).size() == 2);
  std::optional<ValueRef> c;
  if (has_input(node, 2)) c = input(node, 2);
  const double alpha = attr_float(node, "alpha", 1.0F);
  const double beta = attr_float(node, "beta", 1.0F);
  const std::string& name = node.output(0);
  const std::vector<int64_t> swap{1, 0};
  if (attr_int(node, "transA", 0) != 0) {
    a = add(OpKind::Transpose, {a}, {{"perm", swap}}, fresh(name + "_a_t"));
  }
  if (attr_int(node, "transB", 0) != 0) {
    b = add(OpKind::Transpose, {b}, {{"perm", swap}}, fresh(name + "_b_t"));
  }
  bool last = !c && alpha == 1.0;
  ValueRef y = add(OpKind::MatMul, {a, b}, {}, last ? name : fresh(name + "_matmul"));
  if (alpha != 1.0) {
    y = add(OpKind::Mul, {y, add_constant(alpha, name + "_alpha")}, {},
            !c ? name : fresh(name + "_scaled"));
  }
  if (!c) return;
  ValueRef bias = *c;
  if (beta != 1.0) {
    bias = add(OpKind::Mul, {bias, add_constant(beta, name + "_beta")}, {},
               fresh(name + "_bias_scaled"));
  }
  add(dims(y) == dims(bias) ? OpKind::EwAdd : OpKind::Add, {y, bias}, {}, name);
}

void Importer::import_split(const NodeProto& node) {
  ValueRef x = input(node, 0);
  auto rank = static_cast<int64_t>(dims(x).size());
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
  int64_t size = dims(x)[static_cast<size_t>(axis)];
  int64_t parts = node.output_size();
  std::optional<std::vector<int64_t>> sizes =
      result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "split");
  if (!sizes) {
    int64_t count = result_.opset >= 18 ? attr_int(node, "num_outputs", parts) : parts;
    require(count == parts && count > 0);
    int64_t chunk = (size + count - 1) / count;
    sizes = std::vector<int64_t>{};
    for (int64_t k = 0; k < count; ++k) sizes->push_back(std::min(chunk, size - k * chunk));
  }
  require(static_cast<int64_t>(sizes->size()) == parts);
  std::vector<std::string> names;
  for (int k = 0; k < node.output_size(); ++k) {
    require(!node.output(k).empty());
    names.push_back(node.output(k));
  }
  ir::NodeId id = graph().add_node(OpKind::Split, {x}, {{"axis", axis}, {"sizes", *sizes}}, names);
  for (size_t k = 0; k < names.size(); ++k) values_[names[k]] = {id, static_cast<uint32_t>(k)};
}

void Importer::import_reshape_like(const NodeProto& node) {
  const std::string& op = node.op_type();
  ValueRef x = input(node, 0);
  const ir::Dims& in = dims(x);
  auto rank = static_cast<int64_t>(in.size());
  ir::Dims shape;
  if (op == "Reshape") {
    auto target = constant_ints(node, 1);
    require(target.has_value());
    bool allow_zero = attr_int(node, "allowzero", 0) == 1;
    shape = *target;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) {
        require(!allow_zero && i < in.size());
        shape[i] = in[i];
      }
    }
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        require(inferred < 0);
        inferred = static_cast<int>(i);
      } else {
        require(shape[i] > 0);
        known *= shape[i];
      }
    }
    int64_t total = graph().type(x).num_elements();
    if (inferred >= 0) {
      require(known > 0 && total % known == 0);
      shape[static_cast<size_t>(inferred)] = total / known;
    }
  } else if (op == "Flatten") {
    int64_t axis = attr_int(node, "axis", 1);
    require(axis >= -rank && axis <= rank);
    if (axis < 0) axis += rank;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int64_t a = 0; a < rank; ++a) (a < axis ? outer : inner) *= in[static_cast<size_t>(a)];
    shape = {outer, inner};
  } else if (op == "Squeeze") {
    auto axes = result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "axes");
    std::vector<bool> drop(in.size(), false);
    if (!axes) {
      for (size_t a = 0; a < in.size(); ++a) drop[a] = in[a] == 1;
    } else {
      for (int64_t a : *axes) {
        int64_t axis = normalize_axis(a, rank);
        require(in[static_cast<size_t>(axis)] == 1);
        drop[static_cast<size_t>(axis)] = true;
      }
    }
    for (size_t a = 0; a < in.size(); ++a) {
      if (!drop[a]) shape.push_back(in[a]);
    }
  } else {  // Unsqueeze
    auto axes = result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "axes");
    require(axes.has_value());
    int64_t out_rank = rank + static_cast<int64_t>(axes->size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : *axes) {
      int64_t axis = normalize_axis(a, out_rank);
      require(!inserted[static_cast<size_t>(axis)]);
      inserted[static_cast<size_t>(axis)] = true;
    }
    size_t next = 0;
    for (int64_t a = 0; a < out_rank; ++a) {
      shape.push_back(inserted[static_cast<size_t>(a)] ? 1 : in[next++]);
    }
  }
  reshape(x, shape, node.output(0));
}

void Importer::import_clip(const NodeProto& node) {
  ValueRef x = input(node, 0);
  // Absent bounds are the float range, which export leaves out again.
  double low = std::numeric_limits<float>::lowest();
  double high = std::numeric_limits<float>::max();
  if (auto min = constant_scalar(node, 1)) low = *min;
  if (auto max = constant_scalar(node, 2)) high = *max;
  require(low <= high);
  add(OpKind::Clip, {x}, {{"min", low}, {"max", high}}, node.output(0));
}

void Importer::add_outputs() {
  const auto& g = model_.graph();
  if (g.output_size() == 0) fail("the graph has no outputs");
  for (const auto& info : g.output()) {
    auto it = values_.find(info.name());
    if (it == values_.end()) {
      if (other_constants_.contains(info.name())) {
        fail("graph output " + info.name() + " is not a float32 tensor");
      }
      fail("unknown value name " + info.name() +
           " (graph output): no graph input, initializer or node defines it");
    }
    graph().add_output(info.name(), it->second);
    result_.output_names.push_back(info.name());
  }
}

}  // namespace

namespace {

OnnxModel import_checked_model(ModelProto model, const std::string& source,
                               const ImportOptions& options);

ModelProto parse_model(std::string_view bytes, const std::string& source) {
  ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw Error(source + ": not a valid ONNX model: " + std::to_string(bytes.size()) +
                " bytes, past protobuf's 2 GB limit (keep large tensors in external data)");
  }
  ProtobufLogCapture log;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    std::string detail = log.messages();
    throw Error(source +
                ": not a valid ONNX model (the protobuf does not parse: truncated, "
                "corrupt or not ONNX" +
                (detail.empty() ? "" : "; protobuf: " + detail) + ")");
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    throw Error(source + ": not a valid ONNX model (no graph or no IR version)");
  }
  return model;
}

}  // namespace

OnnxModel import_onnx_bytes(std::string_view bytes, const std::string& source,
                            const ImportOptions& options) {
  ProtobufLogCapture log;
  ModelProto model = parse_model(bytes, source);
  int external = options.external_data_dir.empty()
                     ? 0
                     : load_external_data(model, options.external_data_dir, source);
  OnnxModel result = import_onnx_model(std::move(model), source, options);
  result.external_tensors = external;
  return result;
}

OnnxModel import_onnx_model(ModelProto model, const std::string& source,
                            const ImportOptions& options) {
  // A CHECK inside libprotobuf throws FatalException after logging; the log is kept here and
  // the user sees one error line.
  ProtobufLogCapture log;
  try {
    return import_checked_model(std::move(model), source, options);
  } catch (const google::protobuf::FatalException& fatal) {
    std::string detail = log.messages();
    throw Error(source + ": protobuf failed on this model: " +
                (detail.empty() ? std::string(fatal.what()) : detail));
  }
}

namespace {

OnnxModel import_checked_model(ModelProto model, const std::string& source,
                               const ImportOptions& options) {
  int64_t opset = default_opset(model, source);
  pin_input_shapes(model, options.input_shapes, source);
  validate_model(model, source);  // before anything runs ONNX's shape inference on it
  require_static_inputs(model, source);
  FoldOptions folding;
  folding.element_limit = options.fold_element_limit;
  FoldReport folded;
  try {
    folded = fold_constants(model, opset, folding);
  } catch (const Error& error) {
    throw Error(source + ": cannot fold constants: " + error.what());
  }
  OnnxModel result = Importer(model, source, std::move(folded.types)).run();
  result.folded_nodes = folded.folded_nodes;
  result.folded_by_op = folded.folded_by_op;
  return result;
}

}  // namespace

OnnxModel import_onnx(const std::string& path, const ImportOptions& options) {
  // model.onnx + model.onnx.data: tensors past protobuf's 2 GB live beside the file.
  ImportOptions located = options;
  if (located.external_data_dir.empty()) {
    std::filesystem::path base = std::filesystem::path(path).parent_path();
    located.external_data_dir = base.empty() ? "." : base.string();
  }
  return import_onnx_bytes(read_file(path), path, located);
}

}  // namespace saturate::onnx