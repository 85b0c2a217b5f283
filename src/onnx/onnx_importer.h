#pragma once

// The importer behind import_onnx (private to src/onnx, not installed). The model-level steps
// live in onnx_import.cpp, the generic node path in import_node.cpp, opaque nodes in
// import_opaque.cpp, and the operator mappings in one file per family (import_elementwise.cpp,
// import_normalization.cpp, import_conv_pool.cpp, import_matrix_product.cpp,
// import_layout.cpp).
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/axes.h"
#include "ir/graph.h"
#include "onnx/onnx_model.h"
#include "support/error.h"

namespace saturate::onnx {

// Thrown by a mapping that finds attributes the IR cannot express: the node becomes opaque.
struct NotExpressible {};

inline void require(bool condition) {
  if (!condition) throw NotExpressible{};
}

inline int64_t normalize_axis(int64_t axis, int64_t rank) {
  const std::optional<int64_t> position = ir::normalized_axis(axis, rank);
  require(position.has_value());
  return *position;
}

class Importer {
 public:
  // Takes the initializers' data out of `model` as it reads them (no second copy of the weights).
  // `types`: what shape inference gave the model's values (constant folding ran it last).
  // `symbolic_ints`: int64 values the folder computed as symbolic dims (symbolic_folding.h).
  Importer(::onnx::ModelProto& model, std::string source,
           std::map<std::string, ::onnx::TypeProto> types,
           std::map<std::string, std::vector<int64_t>> symbolic_ints = {})
      : model_(model),
        source_(std::move(source)),
        value_types_(types.begin(), types.end()),
        symbolic_ints_(std::move(symbolic_ints)) {}

  OnnxModel run();

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(source_ + ": " + message);
  }

  void read_header();
  void collect_names();
  void add_inputs();
  void add_initializer(::onnx::TensorProto& tensor);
  void import_node(const ::onnx::NodeProto& node);
  void check_input_types(const ::onnx::NodeProto& node) const;
  std::optional<int32_t> elem_type_of(const std::string& name) const;
  bool is_same_type_cast(const ::onnx::NodeProto& node) const;
  void import_opaque(const ::onnx::NodeProto& node);
  void infer_locally_if_untyped(const ::onnx::NodeProto& node);
  void type_from_subgraph_outputs(const ::onnx::NodeProto& node);
  bool import_known(const ::onnx::NodeProto& node);
  // Whether an input of the node has a symbolic dim.
  bool reads_symbolic_shape(const ::onnx::NodeProto& node) const;
  void add_outputs();
  // Records in OnnxModel::new_relations each input dim_param that a declared output dim names
  // and the graph computes as another expression.
  void relate_declared_dims(const ::onnx::ValueInfoProto& output, const ir::Dims& dims);

  // One per operator family, asked in turn by import_known: each returns false for an operator
  // outside its family, and true once it has mapped the node.
  bool import_elementwise(const ::onnx::NodeProto& node);
  bool import_normalization(const ::onnx::NodeProto& node);
  bool import_conv_or_pool(const ::onnx::NodeProto& node);
  bool import_matrix_product(const ::onnx::NodeProto& node);
  bool import_layout(const ::onnx::NodeProto& node);

  // Mappings, one per ONNX operator family; each throws NotExpressible before adding anything
  // to the graph when the node must stay opaque.
  void import_conv(const ::onnx::NodeProto& node);
  void import_pool(const ::onnx::NodeProto& node, bool max);
  void import_gemm(const ::onnx::NodeProto& node);
  void import_split(const ::onnx::NodeProto& node);
  void import_slice(const ::onnx::NodeProto& node);
  void import_reshape_like(const ::onnx::NodeProto& node);
  void import_clip(const ::onnx::NodeProto& node);

  // Values.
  bool has_input(const ::onnx::NodeProto& node, int index) const {
    return index < node.input_size() && !node.input(index).empty();
  }
  ir::ValueRef input(const ::onnx::NodeProto& node, int index) const;
  const ir::Dims& dims(ir::ValueRef value) const { return graph().type(value).dims; }
  std::optional<std::vector<int64_t>> constant_ints(const ::onnx::NodeProto& node, int index) const;
  std::optional<double> constant_scalar(const ::onnx::NodeProto& node, int index) const;
  // Whether an output is used by a later node or the graph (optional outputs often are not).
  bool used(const ::onnx::NodeProto& node, int index) const {
    return index < node.output_size() && !node.output(index).empty() &&
           used_names_.contains(node.output(index));
  }

  ir::Graph& graph() { return result_.graph; }
  const ir::Graph& graph() const { return result_.graph; }
  std::string fresh(const std::string& base);
  ir::ValueRef add(ir::OpKind op, std::vector<ir::ValueRef> inputs, const ir::Attributes& attrs,
                   const std::string& name);
  ir::ValueRef add_constant(double value, const std::string& base, ir::DType dtype);
  ir::ValueRef reshape(ir::ValueRef value, const ir::Dims& shape, const std::string& name);
  ir::TensorType static_type(const std::string& value, const ::onnx::NodeProto* producer) const;

  ::onnx::ModelProto& model_;
  std::string source_;
  OnnxModel result_;
  std::unordered_map<std::string, ir::ValueRef> values_;
  std::unordered_map<std::string, ::onnx::TensorProto> other_constants_;  // non-float constants
  std::unordered_map<std::string, ::onnx::TypeProto> value_types_;
  std::map<std::string, std::vector<int64_t>> symbolic_ints_;
  std::set<std::string> onnx_names_;  // every name the ONNX graph defines
  std::set<std::string> used_names_;  // every name a node or the graph output reads
};

}  // namespace saturate::onnx
