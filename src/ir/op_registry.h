#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::ir {

// One attribute an operator takes. Without a default the attribute is required.
struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;
};

// Computes output types from input types and (complete, checked) attributes. Throws
// saturate::Error with a message that names the offending shapes; the graph adds the node name.
using ShapeInference =
    std::function<std::vector<TensorType>(const std::vector<TensorType>&, const Attributes&)>;

// The ONNX operator an IR operator is written as when that is one node on the same inputs, in
// order, with no attributes (export's default mapping). Empty when export needs more: attributes
// translated, several nodes, or a choice by opset.
struct OnnxOperator {
  std::string domain;  // "" for the default domain, "com.microsoft" for ONNX Runtime's kernels
  std::string op_type;
  bool empty() const { return op_type.empty(); }
};

enum class OpCategory : uint8_t { Leaf, Elementwise, Contraction, Layout, Reduction, Other };

struct OpInfo {
  OpKind kind;
  std::string name;        // the text-form and rule-file name, e.g. "conv2d"
  std::string camel_name;  // the same in CamelCase, PyPM's constructor: "Conv2d", "MatMul"
  int min_inputs = 0;
  int max_inputs = 0;                    // kVariadic for n-ary operators
  std::vector<std::string> input_names;  // for messages and --help; the last repeats if variadic
  std::vector<AttrSpec> attributes;
  OpCategory category = OpCategory::Other;
  std::string description;
  ShapeInference infer;
  int num_outputs = 1;  // kVariadic where the attributes decide (split's sizes, opaque's types)

  static constexpr int kVariadic = -1;
  bool is_leaf() const { return category == OpCategory::Leaf; }
  const AttrSpec* find_attribute(std::string_view attr_name) const;
};

const OpInfo& op_info(OpKind kind);
// The one-node ONNX operator of `kind`; empty when export writes it otherwise.
const OnnxOperator& onnx_operator(OpKind kind);
std::optional<OpKind> find_op(std::string_view name);
const std::vector<OpInfo>& all_ops();
inline std::string_view to_string(OpKind kind) {
  return op_info(kind).name;
}

// Checks attribute names and kinds against the operator's signature and fills in defaults.
// Throws saturate::Error naming the attribute.
Attributes complete_attributes(const OpInfo& info, const Attributes& given);

// Whether the operator does arithmetic on its inputs (and so takes floating-point types only);
// layout operators, leaves, noop and opaque nodes take any element type.
bool computes_arithmetic(const OpInfo& info);

// Arity, attribute and element-type checks followed by shape inference.
std::vector<TensorType> infer_types(OpKind kind, const std::vector<TensorType>& inputs,
                                    const Attributes& attrs);

}  // namespace saturate::ir
