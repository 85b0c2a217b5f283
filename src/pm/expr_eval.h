#pragma once

// Values and evaluation of guard and attribute expressions (docs/PYPM.md §1 and §3,
// "Expression values"). Evaluation reads variables through an ExprScope, so that the same code
// serves both matchers and the rewriter's rule guards.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/op_registry.h"
#include "ir/tensor_type.h"
#include "pm/core.h"
#include "pm/function_ref.h"

namespace saturate::pm {

using ExprValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;

// "int", "float", "bool", "string", "list of ints".
std::string kind_name(const ExprValue& value);
// Python-like text: 3, 2.5, True, "relu", [1, 0].
std::string to_string(const ExprValue& value);

// What an expression can read about its variables. Term variables are graph values; `op_of` and
// `attrs_of` describe the node producing them. Op variables are operator symbols.
class ExprScope {
 public:
  virtual ~ExprScope() = default;
  virtual size_t num_variables() const = 0;
  virtual const Var& variable(uint32_t var) const = 0;
  virtual bool is_bound(uint32_t var) const = 0;
  virtual const ir::TensorType& type_of(uint32_t term_var) const = 0;
  virtual ir::OpKind op_of(uint32_t var) const = 0;
  virtual const ir::Attributes& attrs_of(uint32_t var) const = 0;
};

// Builds the "where" prefix of an error message, only when there is an error.
using ErrorPlace = FunctionRef<std::string()>;

// Symbolic dimensions (ir/symbolic_dim.h) are ints in [ir::kLastSymbolicDim,
// ir::kFirstSymbolicDim], as in the IR: `x.shape[0]` may be the handle of `batch`. The evaluator
// decides what it can for every value of the symbols, on the normal form (docs/PYPM.md, "Symbolic
// dimensions"): + - * build a dim, / and // give the exact quotient, % by a constant and
// comparisons are decided where the normal form decides them. Where the result depends on the sizes
// (`sequence % 2`, `batch > 64`) evaluation throws Undecided: not an error in the patterns, so no
// PatternError.
class Undecided : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws PatternError (prefixed by `where()`) on a type error, an unbound variable, a missing
// attribute, an index out of range, division by zero or integer overflow; Undecided where the
// value depends on the values of symbolic dimensions.
ExprValue evaluate(const Expr& expr, const ExprScope& scope, ErrorPlace where);
// evaluate(), with nullopt where the value is undecided: an attribute constraint then does not
// match, a replacement is not built.
std::optional<ExprValue> evaluate_decided(const Expr& expr, const ExprScope& scope,
                                          ErrorPlace where);
// A guard must evaluate to a bool. An undecided guard is false: a guard holds only when it
// holds for every value of the symbols.
bool evaluate_guard(const Expr& expr, const ExprScope& scope, ErrorPlace where);

// An attribute as an expression sees it: enumerations (activation, padding) as their names.
ExprValue attribute_value(const ir::AttrValue& value, const ir::AttrSpec* spec);
// An expression value stored as an attribute of the given kind; nothing when it does not fit.
std::optional<ir::AttrValue> to_attribute(const ExprValue& value, ir::AttrKind kind);
// Whether a node's attribute equals a pattern's `name = value` (floats with relative tolerance
// 1e-6, enumerations by name or code).
bool attribute_matches(const ir::AttrValue& actual, const ir::AttrSpec* spec,
                       const ExprValue& wanted);

// Whether a constant `a` of element type `dtype` is the number `b` a pattern names: within a
// relative 1e-6 (float32 and wider), or `b` rounded to the 16-bit type (a float16 model holds
// 0.70710678 as 0.70703125).
bool close_enough(double a, double b, ir::DType dtype = ir::DType::F32);

}  // namespace saturate::pm
