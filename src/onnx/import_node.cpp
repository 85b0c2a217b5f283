// ONNX -> IR: the path every node takes (type checks, shape checks, then a mapping or an opaque
// node), and import_known, which asks each operator family in turn.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/symbolic_dim.h"
#include "onnx/host_tensor.h"
#include "onnx/model_validation.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"
#include "onnx/onnx_tensor_data.h"
#include "support/error.h"

namespace saturate::onnx {

using ::onnx::NodeProto;
using ::onnx::TensorProto;

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
      // Over symbolic dims the IR refuses a shape condition it cannot prove for every size
      // (total_sequence_length against past_sequence_length + sequence_length); the ONNX node
      // stays as it is, an opaque node, instead of failing the model.
      if (!reads_symbolic_shape(node)) fail(describe(node) + ": " + message);
      mapped = false;
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

bool Importer::reads_symbolic_shape(const NodeProto& node) const {
  for (const auto& name : node.input()) {
    auto it = values_.find(name);
    if (it != values_.end() && ir::has_symbolic(graph().type(it->second).dims)) return true;
  }
  return false;
}

bool Importer::import_known(const NodeProto& node) {
  const std::string& op = node.op_type();
  // Extra outputs must be unread (Dropout's mask, BatchNormalization's running statistics...).
  for (int k = 1; k < node.output_size(); ++k) {
    if (op != "Split") require(!used(node, k));
  }
  // Operator names are disjoint across families: the order they are asked in does not matter,
  // and a family that does not know the operator returns false before it reads anything.
  return import_elementwise(node) || import_conv_or_pool(node) || import_matrix_product(node) ||
         import_normalization(node) || import_layout(node);
}

}  // namespace saturate::onnx
