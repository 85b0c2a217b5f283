// ONNX -> IR: the model reader (header, opsets, names, typed values, inputs, initializers,
// outputs). Nodes go through import_node.cpp to a mapping per operator family or an opaque node.
#include "onnx/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "onnx/constant_folding.h"
#include "onnx/external_data.h"
#include "onnx/host_tensor.h"
#include "onnx/input_shapes.h"
#include "onnx/model_validation.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"
#include "onnx/onnx_tensor_data.h"
#include "onnx/opaque_capsule.h"
#include "onnx/protobuf_log.h"
#include "onnx/symbolic_folding.h"
#include "onnx/topological_order.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 21;

const char* kDynamicHint =
    "give it a static value (e.g. onnxsim or onnx.shape_inference with fixed input dims)";

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

}  // namespace

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
    if (dim.has_dim_value() && dim.dim_value() <= 0) {
      fail("dynamic shape for value " + value + where + " (dimension of size " +
           std::to_string(dim.dim_value()) + "): " + kDynamicHint);
    }
    // A named dynamic dim is its symbol; one nothing names (a data-dependent size) gets a
    // fresh symbol of its own, carried, never refused.
    std::optional<int64_t> known = dim_from_onnx(dim);
    type.dims.push_back(known ? *known
                              : ir::symbol_dim(ir::fresh_symbol(symbol_base(value) + "_dim")));
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
    tensor.clear_int32_data();
    ir::Dims dims = tensor_dims(tensor);
    const ir::DType dtype = *to_ir_dtype(tensor.data_type());  // a float tensor's
    if (data.size() == 1) {
      values_[tensor.name()] = {graph().add_node(OpKind::Constant, {},
                                                 {{"shape", dims},
                                                  {"value", double{data[0]}},
                                                  {"dtype", std::string(ir::to_string(dtype))}},
                                                 {tensor.name()}),
                                0};
      return;
    }
    values_[tensor.name()] = graph().add_weight(tensor.name(), dims, dtype);
    result_.weights[tensor.name()] = std::move(data);
  } catch (const Error& error) {
    fail(error.what());
  }
}

ValueRef Importer::input(const NodeProto& node, int index) const {
  if (!has_input(node, index)) throw NotExpressible{};
  const std::string& name = node.input(index);
  auto it = values_.find(name);
  // The IR's operators compute on float32, float16 and bfloat16 values; anything else stays an
  // opaque ONNX node.
  if (it != values_.end()) {
    require(is_arithmetic_dtype(graph().type(it->second).dtype));
    return it->second;
  }
  if (other_constants_.contains(name)) throw NotExpressible{};
  fail("unknown value name " + name + " (input of " + describe(node) +
       "): no graph input, initializer or earlier node defines it");
}

std::optional<std::vector<int64_t>> Importer::constant_ints(const NodeProto& node,
                                                            int index) const {
  if (!has_input(node, index)) return std::nullopt;
  if (auto it = symbolic_ints_.find(node.input(index)); it != symbolic_ints_.end()) {
    return it->second;
  }
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

ValueRef Importer::add_constant(double value, const std::string& base, ir::DType dtype) {
  return add(
      OpKind::Constant, {},
      {{"shape", ir::Dims{}}, {"value", value}, {"dtype", std::string(ir::to_string(dtype))}},
      fresh(base));
}

ValueRef Importer::reshape(ValueRef value, const ir::Dims& shape, const std::string& name) {
  return add(OpKind::Reshape, {value}, {{"shape", shape}}, name);
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

void Importer::add_outputs() {
  const auto& g = model_.graph();
  if (g.output_size() == 0) fail("the graph has no outputs");
  for (const auto& info : g.output()) {
    auto it = values_.find(info.name());
    if (it == values_.end()) {
      if (other_constants_.contains(info.name())) {
        fail("graph output " + info.name() + " is a constant of element type " +
             data_type_name(other_constants_.at(info.name()).data_type()) +
             ", which Saturate does not output");
      }
      fail("unknown value name " + info.name() +
           " (graph output): no graph input, initializer or node defines it");
    }
    graph().add_output(info.name(), it->second);
    result_.output_names.push_back(info.name());
    relate_declared_dims(info, graph().type(it->second).dims);
  }
}

void Importer::relate_declared_dims(const ::onnx::ValueInfoProto& output, const ir::Dims& dims) {
  // ONNX makes equal dim_params equal sizes, declared outputs included: an output declared
  // [.., total_sequence_length, ..] that the graph computes as past_sequence_length +
  // sequence_length relates the mask input's total_sequence_length to that sum. Only names a
  // graph input uses are related (a name only an output declares relates no input).
  if (!output.type().has_tensor_type()) return;
  const auto& declared = output.type().tensor_type().shape();
  if (declared.dim_size() != static_cast<int>(dims.size())) return;
  std::set<std::string> input_names;
  for (const auto& info : model_.graph().input()) {
    if (!info.type().has_tensor_type()) continue;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      if (dim.has_dim_param()) input_names.insert(dim.dim_param());
    }
  }
  for (int k = 0; k < declared.dim_size(); ++k) {
    const auto& dim = declared.dim(k);
    const int64_t computed = dims[static_cast<size_t>(k)];
    if (!dim.has_dim_param() || !input_names.contains(dim.dim_param())) continue;
    if (!ir::is_symbolic(computed) || result_.new_relations.contains(dim.dim_param())) continue;
    std::optional<int64_t> named = dim_from_onnx(dim);
    if (!named || *named == computed) continue;
    // Only a name that is one symbol, never read by the expression it is related to.
    const ir::DimExpr name_expr = ir::to_expr(*named);
    auto own = name_expr.symbols();
    if (own.size() != 1 || name_expr != ir::DimExpr::symbol(own[0])) continue;
    auto symbols = ir::to_expr(computed).symbols();
    if (std::find(symbols.begin(), symbols.end(), own[0]) != symbols.end()) continue;
    result_.new_relations[dim.dim_param()] = ir::dim_to_string(computed);
  }
}

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
  ImportOptions related = options;
  // A relation the declared outputs state is applied by reading the model again (each pass
  // relates at least one more name; a few suffice, the cap only guards).
  for (int pass = 0;; ++pass) {
    ModelProto model = parse_model(bytes, source);
    std::set<std::string> files;
    int external = related.external_data_dir.empty()
                       ? 0
                       : load_external_data(model, related.external_data_dir, source, &files);
    OnnxModel result = import_onnx_model(std::move(model), source, related);
    result.external_tensors = external;
    result.external_files = std::move(files);
    if (result.new_relations.empty() || pass >= 4) return result;
    for (auto& [name, expression] : result.new_relations) related.related_dims[name] = expression;
  }
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
  sort_nodes_topologically(*model.mutable_graph(), source);
  validate_model(model, source);  // before anything runs ONNX's shape inference on it
  name_dynamic_input_dims(model);
  forget_undeclared_dim_names(model);
  // The graph's own names for its dynamic axes, as declared before any is related.
  std::vector<std::string> declared_names;
  for (const auto* infos : {&model.graph().input(), &model.graph().output()}) {
    for (const auto& info : *infos) {
      if (!info.type().has_tensor_type()) continue;
      for (const auto& dim : info.type().tensor_type().shape().dim()) {
        if (dim.has_dim_param() && !dim.dim_param().empty()) {
          declared_names.push_back(dim.dim_param());
        }
      }
    }
  }
  relate_dim_params(model, options.related_dims);
  FoldOptions folding;
  folding.element_limit = options.fold_element_limit;
  FoldReport folded;
  try {
    folded = fold_constants(model, opset, folding);
  } catch (const Error& error) {
    throw Error(source + ": cannot fold constants: " + error.what());
  }
  OnnxModel result =
      Importer(model, source, std::move(folded.types), std::move(folded.symbolic_ints)).run();
  result.folded_nodes = folded.folded_nodes;
  result.folded_by_op = folded.folded_by_op;
  result.pinned_input_shapes = options.input_shapes;  // pin_input_shapes checked each name
  result.related_dims = options.related_dims;
  for (const std::string& name : declared_names) {
    ::onnx::TensorShapeProto_Dimension dim;
    auto related = options.related_dims.find(name);
    dim.set_dim_param(related != options.related_dims.end() ? related->second : name);
    std::optional<int64_t> value = dim_from_onnx(dim);
    if (value && ir::is_symbolic(*value)) result.dim_names.emplace(*value, name);
  }
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
