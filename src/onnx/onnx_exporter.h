#pragma once

// The exporter behind export_onnx and write_onnx (private to src/onnx, not installed). The
// model writer lives in onnx_export.cpp, opaque nodes in export_opaque.cpp, and the operator
// mappings in one file per family (export_elementwise.cpp, export_normalization.cpp,
// export_conv_pool.cpp, export_matrix_product.cpp, export_layout.cpp).
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "onnx/external_data_writer.h"
#include "onnx/onnx_model.h"
#include "runtime/interpreter.h"

namespace saturate::onnx {

inline constexpr int64_t kDefaultOpset = 17;
// ONNX Runtime's contrib operators (MultiHeadAttention, ...).
inline constexpr std::string_view kMicrosoftDomain = "com.microsoft";

// `dim_names`: the source model's names for symbolic dims (OnnxModel::dim_names); others are
// written as their expressions.
void set_tensor_type(::onnx::ValueInfoProto& info, const std::string& name,
                     const ir::TensorType& type,
                     const std::map<int64_t, std::string>* dim_names = nullptr);

void add_attr(::onnx::NodeProto& node, const std::string& name, int64_t value);
void add_attr(::onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void add_attr(::onnx::NodeProto& node, const std::string& name, float value);
void add_attr(::onnx::NodeProto& node, const std::string& name, const std::vector<float>& values);
void add_attr(::onnx::NodeProto& node, const std::string& name, const std::string& value);

// The ONNX operator of a fused activation ("Relu", ...; "" for none): the node written after a
// matmul, conv or pool, and FusedConv's `activation` attribute.
std::string_view activation_op(ir::Activation activation);

class Exporter {
 public:
  // With `external`, initializers of kExternalDataThreshold bytes or more go to that file.
  Exporter(const ir::Graph& graph, const OnnxModel& source, ExternalDataWriter* external = nullptr)
      : graph_(graph), source_(source), external_(external) {}
  ::onnx::ModelProto run();
  // The rotary_embedding nodes that run() would write as their formula.
  size_t rotary_formulas();

 private:
  void choose_opset();
  void analyse();
  void assign_names();
  void add_inputs();
  void emit(ir::NodeId id);
  void emit_initializer(ir::NodeId id);
  void emit_opaque(ir::NodeId id);
  // Value types of node `id`'s outputs, when the ONNX nodes emitted for it from `first_node` on
  // include one outside the default domain.
  void type_outside_default_domain(ir::NodeId id, int first_node);
  void add_outputs();

  // One per operator family, asked in turn by emit: each returns false for an operator outside
  // its family, and true once it has written the node.
  // An operator the registry maps to one ONNX node (ir::onnx_operator); false otherwise.
  bool emit_one_node(ir::NodeId id);
  bool emit_elementwise(ir::NodeId id);
  bool emit_normalization(ir::NodeId id);
  bool emit_conv_or_pool(ir::NodeId id);
  bool emit_matrix_product(ir::NodeId id);
  bool emit_layout(ir::NodeId id);

  // Names.
  std::string fresh(const std::string& base);
  const std::string& name_of(ir::ValueRef value) const {
    ir::ValueRef v = resolve(value);
    return names_.at(v.node).at(v.output);
  }
  // A node that writes nothing: noop, and a reshape to its input's own shape (fusions that
  // keep a value's shape, and SDPA's reshapes to the same 4-d shape, leave them).
  bool is_alias(const ir::Node& node) const {
    return node.op == ir::OpKind::Noop ||
           (node.op == ir::OpKind::Reshape && node.outputs[0].dims == dims(node.inputs[0]));
  }
  ir::ValueRef resolve(ir::ValueRef value) const {
    while (is_alias(graph_.node(value.node))) value = graph_.node(value.node).inputs[0];
    return value;
  }
  const ir::Dims& dims(ir::ValueRef value) const { return graph_.type(value).dims; }

  // Emission helpers.
  ::onnx::NodeProto& add_node(const std::string& op_type, std::vector<std::string> inputs,
                              std::vector<std::string> outputs);
  std::string ints_initializer(const std::vector<int64_t>& values, const std::string& base);
  // A 0-d initializer of element type `dtype` (the type of the values it combines with).
  std::string scalar_initializer(double value, const std::string& base, ir::DType dtype);
  // A Reshape's target for every size the symbols take: the dims themselves when static, 0 and
  // one -1 where those say it, else a shape computed from the Shape of earlier values that carry
  // each symbolic dim. Throws saturate::Error when no earlier value carries one.
  std::string reshape_target(ir::NodeId id, const std::string& base);
  // An int64 tensor holding `dims` for every size: a constant when static, else a Concat of
  // constants and Shape slices of values before node `before` that carry each symbolic dim.
  // Throws saturate::Error naming `what` when no earlier value carries one.
  std::string shape_tensor(const ir::Dims& dims, ir::NodeId before, const std::string& base,
                           const std::string& what);
  // One symbolic dim as a 1-element int64 tensor: a Shape slice of a value that carries it, or
  // computed from its symbols' (Mul, Add, Sub, Div by its constant denominator).
  std::string dim_tensor(int64_t dim, ir::NodeId before, const std::string& base,
                         const std::string& what);
  // The name a node with a fused activation writes before it: its own output without one.
  std::string pre_activation(ir::NodeId id);
  void emit_activation(const std::string& pre, const std::string& out, ir::Activation activation);
  void emit_attention(ir::NodeId id);
  void emit_skip_normalization(ir::NodeId id);
  // A fused conv's bias as ONNX Conv reads it: one value per channel, 1-d.
  std::string conv_bias(ir::NodeId id);
  // Whether conv_bias writes a known, not 1-d bias again as a 1-d initializer of its own (the
  // bias value itself then need not be written).
  bool rewrites_known_conv_bias(ir::NodeId id) const;
  void emit_rotary_embedding(ir::NodeId id);
  void emit_slice(const std::string& x, int64_t axis, int64_t start, int64_t end,
                  const std::string& y);
  // The cos and sin caches (S, H/2) of a rotary node whose tables are known at export and
  // repeat their first half in every row; nothing otherwise (the node is written as its formula).
  const std::optional<std::pair<std::vector<float>, std::vector<float>>>& rotary_caches(
      ir::NodeId id);
  // Whether a node or a graph output reads `value` (optional outputs are written only then).
  bool is_read(ir::ValueRef value) const;

  // A pad that the consuming conv or average pool folds into its own pads.
  std::optional<ir::NodeId> foldable_pad(ir::NodeId consumer) const;
  runtime::Tensor value_of(ir::ValueRef value);
  const std::vector<float>& weight_data(const ir::Node& node) const;

  const ir::Graph& graph_;
  const OnnxModel& source_;
  ExternalDataWriter* external_ = nullptr;
  ::onnx::ModelProto model_;
  ::onnx::GraphProto* out_ = nullptr;
  int64_t opset_ = kDefaultOpset;
  bool uses_microsoft_domain_ = false;  // a contrib operator was written
  std::vector<bool> needed_;
  std::vector<bool> known_;         // computed from weights and constants only
  std::vector<bool> materialized_;  // a known value the emitted graph reads
  std::vector<bool> emitted_pad_;   // pads that stay as ONNX Pad nodes
  std::vector<std::vector<std::string>> names_;
  std::set<std::string> output_names_;  // the graph's outputs (add_outputs declares their types)
  std::set<std::string> taken_;
  std::unordered_map<std::string, std::string> embedded_;  // embedded constant -> its bytes
  std::unordered_map<ir::NodeId, std::vector<runtime::Tensor>> folded_;
  std::unordered_map<ir::NodeId, std::optional<std::pair<std::vector<float>, std::vector<float>>>>
      rotary_caches_;
  // Symbolic dim -> the earliest written value and axis that carry it (shape_tensor).
  std::unordered_map<int64_t, std::pair<ir::ValueRef, int64_t>> dim_carriers_;
};

}  // namespace saturate::onnx
