#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/error.h"
#include "support/sexpr.h"

namespace saturate::eqsat {

// A side condition of a rule, over the shapes of bound tensors and the values of bound integer
// attributes, for what the shape check alone cannot say (a concat of conv weights is only
// sound for ungrouped convolutions, say):
//   rule: LHS => RHS if (= (dim ?x 1) (dim ?w 1)) (< (rank ?a) 4)
// Comparisons: = != < <= > >=; integer expressions: literals, (dim ?v AXIS) (negative axes
// count from the end), (rank ?v), ?attr (an integer-valued attribute variable), and
// (+ A B), (* A B), (mod A B).
// Dimensions may be symbolic (ir/symbolic_dim.h): a condition holds only when it holds for every
// value of the symbols, decided on the normal form of the expressions (eqsat/dim_facts.h):
// `=` when both sides have one normal form, `!=` `<` `<=` `>` `>=` when the lower bound of the
// difference decides them, `mod` by a constant when every coefficient but the constant term's
// is a multiple of it. A condition not decided for every size is false: the rule does not fire.
struct IntExpression {
  enum class Kind { Literal, Dim, Rank, Attribute, Arithmetic };
  Kind kind = Kind::Literal;
  int64_t value = 0;                    // Literal, or the axis of Dim
  std::string variable;                 // Dim, Rank, Attribute; the function of Arithmetic
  std::vector<IntExpression> operands;  // Arithmetic
};

struct Condition {
  enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };
  Compare compare = Compare::Eq;
  IntExpression left;
  IntExpression right;
  SourceLocation location;

  std::string to_string() const;
};

// Looks up what a condition needs: the dims of a tensor variable, an attribute's integer value.
struct ConditionContext {
  std::function<std::optional<std::vector<int64_t>>(const std::string&)> dims_of;
  std::function<std::optional<int64_t>(const std::string&)> attribute_of;
};

Condition parse_condition(const SExpr& expr);
// False when a needed value is unknown, an axis is out of range or (for symbolic dimensions)
// the condition is not proved for every value of the symbols.
bool holds(const Condition& condition, const ConditionContext& context);
// The variables a condition reads (to check they are bound by the left-hand side).
std::vector<std::string> condition_variables(const Condition& condition);

}  // namespace saturate::eqsat
