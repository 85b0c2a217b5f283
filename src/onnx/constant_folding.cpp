#include "onnx/constant_folding.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/symbolic_dim.h"
#include "onnx/fold_kernels.h"
#include "onnx/host_tensor.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_tensor_data.h"
#include "onnx/opaque_capsule.h"
#include "onnx/symbolic_folding.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

// Initializers up to this many elements keep their data in the copy shape inference sees:
// shape tensors and scalars, which its data propagation reads.
constexpr int64_t kInferenceDataLimit = 1024;

// The tensor a Constant node holds, when it holds a numeric tensor.
std::optional<TensorProto> constant_tensor(const NodeProto& node) {
  TensorProto tensor;
  if (const auto* value = find_attr(node, "value")) {
    tensor = value->t();
  } else if (const auto* f = find_attr(node, "value_float")) {
    tensor.set_data_type(TensorProto::FLOAT);
    tensor.add_float_data(f->f());
  } else if (const auto* fs = find_attr(node, "value_floats")) {
    tensor.set_data_type(TensorProto::FLOAT);
    tensor.add_dims(fs->floats_size());
    for (float v : fs->floats()) tensor.add_float_data(v);
  } else if (const auto* i = find_attr(node, "value_int")) {
    tensor.set_data_type(TensorProto::INT64);
    tensor.add_int64_data(i->i());
  } else if (const auto* is = find_attr(node, "value_ints")) {
    tensor.set_data_type(TensorProto::INT64);
    tensor.add_dims(is->ints_size());
    for (int64_t v : is->ints()) tensor.add_int64_data(v);
  } else {
    return std::nullopt;
  }
  if (node.output_size() != 1 || node.output(0).empty()) return std::nullopt;
  tensor.set_name(node.output(0));
  return tensor;
}

int64_t element_count_of(const TensorProto& tensor) {
  return checked_element_count(tensor_dims(tensor)).value_or(-1);
}

// Static dims of a typed value, when every dimension is known.
std::optional<ir::Dims> static_dims(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  ir::Dims dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return dims;
}

class Folder {
 public:
  Folder(ModelProto& model, int64_t opset, const FoldOptions& options)
      : model_(model), options_(options) {
    context_.opset = opset;
    context_.element_limit = options.element_limit;
  }

  FoldReport run() {
    constants_to_initializers();
    index_initializers();
    bool changed = true;
    for (report_.rounds = 1; report_.rounds <= options_.max_rounds; ++report_.rounds) {
      types_ = infer_types_without_weights(model_);
      changed = fold_round();
      if (!changed) break;
    }
    changed |= drop_unused_empty_initializers();
    // The last inference saw the final model unless the last round still folded something.
    report_.types = changed ? infer_types_without_weights(model_) : std::move(types_);
    for (auto& [name, value] : symbolic_) report_.symbolic_ints[name] = value.ints;
    return report_;
  }

 private:
  void constants_to_initializers() {
    auto* graph = model_.mutable_graph();
    std::vector<NodeProto> kept;
    bool changed = false;
    for (const auto& node : graph->node()) {
      if (node.op_type() == "Constant" && is_default_domain(node.domain())) {
        if (auto tensor = constant_tensor(node)) {
          *graph->add_initializer() = std::move(*tensor);
          changed = true;
          continue;
        }
      }
      kept.push_back(node);
    }
    if (!changed) return;
    graph->clear_node();
    for (auto& node : kept) *graph->add_node() = std::move(node);
  }

  void index_initializers() {
    initializers_.clear();
    for (int k = 0; k < model_.graph().initializer_size(); ++k) {
      initializers_[model_.graph().initializer(k).name()] = k;
    }
  }

  // The known value of `name`, read on first use; nullptr when it is not a foldable constant.
  const HostTensor* known(const std::string& name) {
    if (auto it = values_.find(name); it != values_.end()) return &it->second;
    if (auto it = symbolic_.find(name); it != symbolic_.end()) return &it->second;
    auto init = initializers_.find(name);
    if (init == initializers_.end()) return nullptr;
    const TensorProto& tensor = model_.graph().initializer(init->second);
    if (!foldable_type(tensor.data_type()) || tensor.data_location() == TensorProto::EXTERNAL) {
      return nullptr;
    }
    HostTensor value = read_host_tensor(tensor, "initializer " + name);
    return &values_.emplace(name, std::move(value)).first->second;
  }

  bool is_initializer(const std::string& name) const { return initializers_.contains(name); }
  bool is_small_initializer(const std::string& name) const {
    auto it = initializers_.find(name);
    if (it == initializers_.end()) return false;
    const int64_t count = element_count_of(model_.graph().initializer(it->second));
    return count >= 0 && count <= kInferenceDataLimit;
  }

  int32_t elem_type_of(const std::string& name) const {
    if (auto it = initializers_.find(name); it != initializers_.end()) {
      return model_.graph().initializer(it->second).data_type();
    }
    if (auto it = types_.find(name); it != types_.end() && it->second.has_tensor_type()) {
      return it->second.tensor_type().elem_type();
    }
    return TensorProto::UNDEFINED;
  }

  std::optional<ir::Dims> dims_of(const std::string& name) const {
    if (auto it = initializers_.find(name); it != initializers_.end()) {
      return tensor_dims(model_.graph().initializer(it->second));
    }
    if (auto it = types_.find(name); it != types_.end()) return dims_from_onnx(it->second);
    return std::nullopt;
  }

  // Shape and Size need only the input's static shape.
  std::optional<std::vector<HostTensor>> fold_shape(const NodeProto& node) {
    if (node.input_size() < 1) return std::nullopt;
    auto dims = dims_of(node.input(0));
    if (!dims) return std::nullopt;
    HostTensor out;
    out.elem_type = TensorProto::INT64;
    if (node.op_type() == "Size") {
      if (ir::has_symbolic(*dims)) {
        out.ints = {ir::dim_product(*dims)};
        return std::vector<HostTensor>{out};
      }
      auto count = checked_element_count(*dims);
      if (!count) return std::nullopt;
      out.ints = {*count};
      return std::vector<HostTensor>{out};
    }
    auto rank = static_cast<int64_t>(dims->size());
    int64_t start = attr_int(node, "start", 0);
    int64_t end = attr_int(node, "end", rank);
    if (start < 0) start = std::max<int64_t>(start + rank, 0);
    if (end < 0) end = std::max<int64_t>(end + rank, 0);
    start = std::min(start, rank);
    end = std::min(end, rank);
    for (int64_t a = start; a < end; ++a) out.ints.push_back((*dims)[static_cast<size_t>(a)]);
    out.dims = {static_cast<int64_t>(out.ints.size())};
    return std::vector<HostTensor>{out};
  }

  bool worth_folding(const NodeProto& node) const {
    // Float weight arithmetic (float32, float16, bfloat16) of some size is left to the IR, which
    // folds it on export. A unary operator the IR has no operator for would stay an opaque node,
    // whose value no rule and no export decision can read (a rotary embedding's Cos and Sin
    // tables): it is folded at any size (its output is no larger than its input).
    static const std::set<std::string> unmapped_unary = {
        "Sin", "Cos", "Tan", "Neg", "Abs", "Sign", "Reciprocal", "Log", "Floor", "Ceil", "Round"};
    if (unmapped_unary.contains(node.op_type())) return true;
    int64_t float_elements = 0;
    for (const auto& name : node.input()) {
      if (name.empty()) continue;
      auto it = initializers_.find(name);
      if (it == initializers_.end()) return true;
      const TensorProto& tensor = model_.graph().initializer(it->second);
      if (!is_float_tensor(tensor)) return true;
      float_elements += element_count_of(tensor);
    }
    return float_elements <= options_.float_input_limit;
  }

  // A node whose every output has a static shape with a zero dimension computes empty tensors,
  // whatever its inputs hold: exporters write them where a slice takes nothing (the pass-through
  // half of a partial rotary embedding with the whole head rotated), and the IR has no empty
  // tensors. They become empty initializers, which Concat then drops (drop_empty_operands).
  std::optional<std::vector<HostTensor>> fold_empty(const NodeProto& node) const {
    if (node.output_size() == 0) return std::nullopt;
    std::vector<HostTensor> outputs;
    for (const auto& name : node.output()) {
      auto it = types_.find(name);
      if (name.empty() || it == types_.end()) return std::nullopt;
      auto dims = static_dims(it->second);
      int32_t elem_type = it->second.tensor_type().elem_type();
      if (!dims || !foldable_type(elem_type) || checked_element_count(*dims) != 0) {
        return std::nullopt;
      }
      HostTensor empty;
      empty.elem_type = elem_type;
      empty.dims = *dims;
      outputs.push_back(std::move(empty));
    }
    return outputs;
  }

  // Empty tensors no node reads any more (Concat dropped them) are removed: the IR has none.
  bool drop_unused_empty_initializers() {
    std::set<std::string> used;
    const auto& graph = model_.graph();
    for (const auto& node : graph.node()) {
      used.insert(node.input().begin(), node.input().end());
      for (const auto& name : outer_references(node)) used.insert(name);
    }
    for (const auto& info : graph.output()) used.insert(info.name());
    auto* initializers = model_.mutable_graph()->mutable_initializer();
    auto unused_empty = [&](const TensorProto& tensor) {
      return element_count_of(tensor) == 0 && !used.contains(tensor.name());
    };
    auto removed = std::remove_if(initializers->begin(), initializers->end(), unused_empty);
    if (removed == initializers->end()) return false;
    initializers->erase(removed, initializers->end());
    index_initializers();
    return true;
  }

  bool is_empty_initializer(const std::string& name) const {
    auto it = initializers_.find(name);
    return it != initializers_.end() &&
           element_count_of(model_.graph().initializer(it->second)) == 0;
  }

  // Concat ignores empty operands: they are removed (a Concat left with one operand becomes an
  // Identity). Returns whether `node` changed.
  bool drop_empty_operands(NodeProto& node) const {
    if (node.op_type() != "Concat" || !is_default_domain(node.domain())) return false;
    std::vector<std::string> kept;
    for (const auto& name : node.input()) {
      if (!is_empty_initializer(name)) kept.push_back(name);
    }
    if (kept.empty() || kept.size() == static_cast<size_t>(node.input_size())) return false;
    node.clear_input();
    for (const auto& name : kept) node.add_input(name);
    if (kept.size() == 1) {
      node.set_op_type("Identity");
      node.clear_attribute();
    }
    return true;
  }

  std::optional<std::vector<HostTensor>> try_fold(const NodeProto& node) {
    if (!is_default_domain(node.domain())) return std::nullopt;
    if (!subgraphs_of(node).empty()) return std::nullopt;
    if (auto empty = fold_empty(node)) return empty;
    const std::string& op = node.op_type();
    if (op == "Shape" || op == "Size") return fold_shape(node);
    if (!is_foldable_op(op)) return std::nullopt;
    std::vector<const HostTensor*> inputs;
    bool symbolic = false;
    for (const auto& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      symbolic |= symbolic_.contains(name);
      if (!is_initializer(name) && !symbolic_.contains(name)) return std::nullopt;
    }
    if (symbolic) {
      for (const auto& name : node.input()) inputs.push_back(name.empty() ? nullptr : known(name));
      try {
        return fold_symbolic(node, inputs, context_.opset);
      } catch (const Error&) {
        return std::nullopt;
      }
    }
    if (!worth_folding(node)) return std::nullopt;
    inputs.clear();
    for (const auto& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      const HostTensor* value = known(name);
      if (value == nullptr) return std::nullopt;
      inputs.push_back(value);
    }
    return fold_node(node, inputs, context_);
  }

  bool fold_round() {
    auto* graph = model_.mutable_graph();
    std::vector<NodeProto> kept;
    int folded = 0;
    bool rewritten = false;
    for (auto& node : *graph->mutable_node()) rewritten |= drop_empty_operands(node);
    for (const auto& node : graph->node()) {
      note_index_range(node);
      if (computes_symbolic(node)) {
        kept.push_back(node);
        continue;
      }
      std::optional<std::vector<HostTensor>> outputs;
      try {
        outputs = try_fold(node);
      } catch (const Error& error) {
        throw Error(describe(node) + ": " + error.what());
      }
      if (!outputs || outputs->size() != static_cast<size_t>(node.output_size())) {
        rewritten |= type_shape_consumer(node);
        kept.push_back(node);
        continue;
      }
      if (std::any_of(outputs->begin(), outputs->end(), holds_symbolic)) {
        // Handles are no sizes: the value stays beside the model, computed by its node.
        for (int k = 0; k < node.output_size(); ++k) {
          if (!node.output(k).empty()) {
            symbolic_[node.output(k)] = std::move((*outputs)[static_cast<size_t>(k)]);
          }
        }
        rewritten = true;
        kept.push_back(node);
        continue;
      }
      for (int k = 0; k < node.output_size(); ++k) {
        const std::string& name = node.output(k);
        if (name.empty()) continue;
        auto& value = (*outputs)[static_cast<size_t>(k)];
        TensorProto* tensor = graph->add_initializer();
        write_host_tensor(value, name, *tensor);
        initializers_[name] = graph->initializer_size() - 1;
        values_[name] = std::move(value);
      }
      ++folded;
      ++report_.folded_by_op[node.op_type()];
    }
    if (folded == 0) return rewritten;
    report_.folded_nodes += folded;
    graph->clear_node();
    for (auto& node : kept) *graph->add_node() = std::move(node);
    return true;
  }

  // Whether the node's outputs are symbolic values already computed.
  bool computes_symbolic(const NodeProto& node) const {
    return node.output_size() > 0 &&
           std::all_of(node.output().begin(), node.output().end(),
                       [&](const std::string& name) { return symbolic_.contains(name); });
  }

  // Positions computed as Range(start, limit) (GPT-2's `arange(past, past + sequence)`), carried
  // through the operators that keep values, and read by a Gather from a table of R rows: the
  // model accepts only limit <= R, recorded as an assumption like a table sliced to a symbolic
  // length (profiles and verification then keep to it).
  void note_index_range(const NodeProto& node) {
    if (!is_default_domain(node.domain()) || node.output_size() < 1) return;
    const std::string& op = node.op_type();
    if (op == "Range" && node.input_size() == 3) {
      const HostTensor* start = known(node.input(0));
      const HostTensor* limit = known(node.input(1));
      const HostTensor* delta = known(node.input(2));
      if (start && limit && delta && start->size() == 1 && limit->size() == 1 &&
          delta->size() == 1 && !delta->is_real() && delta->ints[0] == 1 && !start->is_real() &&
          !limit->is_real()) {
        index_ranges_[node.output(0)] = {start->ints[0], limit->ints[0]};
      }
      return;
    }
    static const std::set<std::string> kKeepValues = {"Unsqueeze", "Squeeze", "Reshape",
                                                      "Expand",    "Cast",    "Identity"};
    if (kKeepValues.contains(op) && node.input_size() > 0) {
      if (auto it = index_ranges_.find(node.input(0)); it != index_ranges_.end()) {
        index_ranges_[node.output(0)] = it->second;
      }
      return;
    }
    if (op == "Add" && node.input_size() == 2) {  // positions offset by the cache length
      for (int k = 0; k < 2; ++k) {
        auto it = index_ranges_.find(node.input(k));
        if (it == index_ranges_.end()) continue;  // before reading the other operand: a weight
        const HostTensor* offset = known(node.input(1 - k));
        if (offset == nullptr || offset->size() != 1 || offset->is_real()) continue;
        index_ranges_[node.output(0)] = {ir::dim_sum(it->second.first, offset->ints[0]),
                                         ir::dim_sum(it->second.second, offset->ints[0])};
        return;
      }
      return;
    }
    if (op == "Concat" && node.input_size() > 0) {  // GatherND's index tuples, one per part
      note_index_tuple(node);
      return;
    }
    if (op == "GatherND" && node.input_size() == 2) {
      auto tuple = index_tuples_.find(node.input(1));
      if (tuple == index_tuples_.end()) return;
      const int64_t batch_dims = attr_int(node, "batch_dims", 0);
      for (size_t j = 0; j < tuple->second.size(); ++j) {
        if (tuple->second[j]) {
          note_read_range(node, *tuple->second[j], static_cast<int64_t>(j) + batch_dims);
        }
      }
      return;
    }
    if (op != "Gather" || node.input_size() != 2) return;
    if (auto range = index_ranges_.find(node.input(1)); range != index_ranges_.end()) {
      note_read_range(node, range->second, attr_int(node, "axis", 0));
    }
  }

  // Indices [start, limit) read along `axis` of the node's first input: the model accepts only
  // limit <= that dim (ONNX Runtime fails past it), whether the dim is a table's fixed rows or a
  // symbolic length (a mask of total_sequence_length columns read at arange(past + sequence)).
  void note_read_range(const NodeProto& node, const std::pair<int64_t, int64_t>& range,
                       int64_t axis) {
    const auto [start, limit] = range;
    auto table = dims_of(node.input(0));
    if (!table || ir::dim_least_value(start) < 0) return;
    const int64_t rank = static_cast<int64_t>(table->size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return;
    const int64_t size = (*table)[static_cast<size_t>(axis)];
    if (!ir::is_symbolic(limit) && !ir::is_symbolic(size)) return;
    const std::string what = is_initializer(node.input(0))
                                 ? "a table of " + ir::dim_text(size) + " rows"
                                 : "axis " + std::to_string(axis) + " of " + node.input(0) + " (" +
                                       ir::dim_text(size) + ")";
    ir::assume_at_most(
        limit, size,
        describe(node) + " reads indices up to " + ir::dim_text(limit) + " of " + what);
  }

  // Concat along the last axis of parts whose last dim is 1: GatherND's index tuples, each part
  // one component (a Range carried through Unsqueeze and Expand, or unknown).
  void note_index_tuple(const NodeProto& node) {
    std::vector<std::optional<std::pair<int64_t, int64_t>>> parts;
    bool any = false;
    const int64_t axis = attr_int(node, "axis", 0);
    for (const auto& name : node.input()) {
      auto dims = dims_of(name);
      if (!dims || dims->empty() || dims->back() != 1) return;
      if (axis != -1 && axis != static_cast<int64_t>(dims->size()) - 1) return;
      auto it = index_ranges_.find(name);
      any |= it != index_ranges_.end();
      parts.push_back(it == index_ranges_.end()
                          ? std::nullopt
                          : std::optional<std::pair<int64_t, int64_t>>(it->second));
    }
    if (any) index_tuples_[node.output(0)] = std::move(parts);
  }

  // States the output type of a node that reads a symbolic shape (Reshape, Expand,
  // ConstantOfShape, Range) in the model's value_info, which ONNX's inference cannot compute and
  // then carries on to the nodes after it. Returns whether it wrote one.
  bool type_shape_consumer(const NodeProto& node) {
    if (node.output_size() < 1 || node.output(0).empty() || typed_.contains(node.output(0))) {
      return false;
    }
    // Typed here: outputs computed from a symbolic value, and outputs whose dims ONNX's
    // inference lost over symbolic inputs (it keeps names only through a few operators).
    auto current = types_.find(node.output(0));
    bool untyped = current == types_.end() || !dims_from_onnx(current->second);
    bool symbolic = false;
    for (const auto& name : node.input()) symbolic |= symbolic_.contains(name);
    if (!symbolic && !untyped) return false;
    // Shape operands are small: a weight is not read (as doubles, it would be twice its size).
    std::vector<const HostTensor*> inputs;
    std::vector<std::optional<ir::Dims>> input_dims;
    for (const auto& name : node.input()) {
      bool constant = !name.empty() && (symbolic_.contains(name) ||
                                        (is_initializer(name) && is_small_initializer(name)));
      inputs.push_back(constant ? known(name) : nullptr);
      input_dims.push_back(name.empty() ? std::nullopt : dims_of(name));
    }
    auto dims = symbolic_output_dims(node, inputs, input_dims);
    if (!dims) return false;
    int32_t elem_type = TensorProto::UNDEFINED;
    if (current != types_.end() && current->second.has_tensor_type()) {
      elem_type = current->second.tensor_type().elem_type();
    }
    if (elem_type == TensorProto::UNDEFINED && node.op_type() == "ConstantOfShape") {
      const auto* value = find_attr(node, "value");
      elem_type = value != nullptr ? value->t().data_type() : TensorProto::FLOAT;
    }
    if (elem_type == TensorProto::UNDEFINED && node.input_size() > 0) {
      elem_type = elem_type_of(node.input(node.op_type() == "Where" ? 1 : 0));
    }
    if (elem_type == TensorProto::UNDEFINED) return false;
    ::onnx::ValueInfoProto* info = nullptr;
    for (auto& existing : *model_.mutable_graph()->mutable_value_info()) {
      if (existing.name() == node.output(0)) info = &existing;
    }
    if (info == nullptr) info = model_.mutable_graph()->add_value_info();
    info->Clear();
    info->set_name(node.output(0));
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem_type);
    auto* shape = tensor->mutable_shape();
    for (int64_t d : *dims) set_onnx_dim(d, *shape->add_dim());
    typed_.insert(node.output(0));
    return true;
  }

  ModelProto& model_;
  FoldOptions options_;
  FoldContext context_;
  FoldReport report_;
  std::unordered_map<std::string, int> initializers_;  // name -> index in the graph
  std::unordered_map<std::string, HostTensor> values_;
  // Values whose elements are symbolic dims, kept beside the model (see symbolic_folding.h).
  std::unordered_map<std::string, HostTensor> symbolic_;
  // Values computed as Range(start, limit) with step 1 (note_index_range).
  std::unordered_map<std::string, std::pair<int64_t, int64_t>> index_ranges_;
  std::unordered_map<std::string, std::vector<std::optional<std::pair<int64_t, int64_t>>>>
      index_tuples_;
  std::set<std::string> typed_;  // shape consumers whose output type the folder stated
  std::map<std::string, ::onnx::TypeProto> types_;
};

}  // namespace

std::map<std::string, ::onnx::TypeProto> infer_types_without_weights(const ModelProto& model) {
  ModelProto skeleton;
  skeleton.set_ir_version(model.ir_version());
  *skeleton.mutable_opset_import() = model.opset_import();
  *skeleton.mutable_functions() = model.functions();
  const auto& graph = model.graph();
  auto* out = skeleton.mutable_graph();
  out->set_name(graph.name());
  *out->mutable_input() = graph.input();
  *out->mutable_output() = graph.output();
  *out->mutable_node() = graph.node();
  *out->mutable_value_info() = graph.value_info();  // types the model states itself
  std::set<std::string> inputs;
  for (const auto& info : graph.input()) inputs.insert(info.name());
  for (const auto& tensor : graph.initializer()) {
    if (element_count_of(tensor) >= 0 && element_count_of(tensor) <= kInferenceDataLimit &&
        tensor.data_location() != TensorProto::EXTERNAL) {
      *out->add_initializer() = tensor;
      continue;
    }
    if (inputs.contains(tensor.name())) continue;
    auto* info = out->add_input();
    info->set_name(tensor.name());
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.data_type());
    auto* shape = type->mutable_shape();
    for (int64_t d : tensor.dims()) shape->add_dim()->set_dim_value(d);
  }
  try {
    // No data propagation: ONNX 1.12's dereferences a null type in ShapeInferenceImplBase::process
    // on some mutated models (fuzz_onnx_import); the fold pass computes shape values itself.
    ::onnx::shape_inference::InferShapes(skeleton, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    // What inference could not type stays unknown; the importer reports it if it matters.
  }
  std::map<std::string, ::onnx::TypeProto> types;
  const auto& inferred = skeleton.graph();
  for (const auto& info : inferred.input()) types[info.name()] = info.type();
  for (const auto& info : inferred.value_info()) types[info.name()] = info.type();
  for (const auto& info : inferred.output()) {
    if (info.type().has_tensor_type()) types[info.name()] = info.type();
  }
  return types;
}

FoldReport fold_constants(ModelProto& model, int64_t opset, const FoldOptions& options) {
  return Folder(model, opset, options).run();
}

}  // namespace saturate::onnx
