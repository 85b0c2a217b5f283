#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eqsat/language.h"
#include "ir/attribute.h"
#include "ir/tensor_type.h"

namespace saturate::eqsat {

// A leaf tensor of the graph being optimized: an input, a weight or a constant, with its type.
struct LeafTensor {
  ir::OpKind op = ir::OpKind::Input;  // Input, Weight or Constant
  std::string name;
  ir::TensorType type;
  double value = 0;  // Constant only

  bool operator==(const LeafTensor&) const = default;
};

// The label of an e-node of the tensor language (egraph::Operator): an operator of the
// language (its children are its slots, attributes included), an attribute value (a leaf, so
// that rule variables can stand for attributes and equal attributes share one class), or a leaf
// tensor. Attribute values and leaves are interned process-wide, so a label is three integers
// and compares and hashes in constant time.
struct TensorOp {
  enum class Kind : uint8_t { Operator, Attribute, Leaf };

  Kind kind = Kind::Operator;
  uint16_t language_op = 0;  // Operator: index in language_ops()
  uint32_t value = 0;        // Attribute: interned value; Leaf: interned leaf tensor

  static TensorOp of(const LanguageOp& op);
  static TensorOp attribute(const ir::AttrValue& value);
  static TensorOp leaf(const LeafTensor& leaf);

  const LanguageOp& op() const;                  // Operator only
  const ir::AttrValue& attribute_value() const;  // Attribute only
  const LeafTensor& leaf_tensor() const;         // Leaf only

  auto operator<=>(const TensorOp&) const = default;
  std::size_t hash() const;
  // Operators by language index, then one index for all attributes and one for all leaves.
  uint32_t index() const;
  std::string to_string() const;
  // Operator names with the arity their slots need, integers as attributes.
  static std::optional<TensorOp> parse(std::string_view text, std::size_t arity);
};

}  // namespace saturate::eqsat
