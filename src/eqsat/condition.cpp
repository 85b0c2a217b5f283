#include "eqsat/condition.h"

#include <limits>

#include "eqsat/dim_facts.h"
#include "ir/symbolic_dim.h"
#include "support/strings.h"

namespace saturate::eqsat {
namespace {

[[noreturn]] void fail(const SExpr& where, const std::string& message) {
  throw ParseError(where.location, message);
}

std::string variable_name(const SExpr& expr) {
  if (expr.kind != SExpr::Kind::Symbol || expr.text.size() < 2 || expr.text[0] != '?') {
    fail(expr, "expected a variable ?name, got " + expr.describe());
  }
  return expr.text.substr(1);
}

IntExpression parse_expression(const SExpr& expr) {
  if (expr.kind == SExpr::Kind::Symbol) {
    if (!expr.text.empty() && expr.text[0] == '?') {
      return {IntExpression::Kind::Attribute, 0, variable_name(expr), {}};
    }
    if (auto value = parse_int(expr.text)) return {IntExpression::Kind::Literal, *value, "", {}};
  }
  if (expr.kind == SExpr::Kind::List && !expr.items.empty()) {
    const auto& head = expr.items[0];
    if (head.is_symbol("dim") && expr.items.size() == 3) {
      auto axis = parse_int(expr.items[2].text);
      if (!axis || expr.items[2].kind != SExpr::Kind::Symbol) {
        fail(expr.items[2], "expected an axis number");
      }
      return {IntExpression::Kind::Dim, *axis, variable_name(expr.items[1]), {}};
    }
    if (head.is_symbol("rank") && expr.items.size() == 2) {
      return {IntExpression::Kind::Rank, 0, variable_name(expr.items[1]), {}};
    }
    bool arithmetic = head.is_symbol("mod") || head.is_symbol("+") || head.is_symbol("*");
    if (arithmetic && expr.items.size() == 3) {
      return {IntExpression::Kind::Arithmetic,
              0,
              head.text,
              {parse_expression(expr.items[1]), parse_expression(expr.items[2])}};
    }
  }
  fail(expr,
       "expected an integer, ?attribute, (dim ?x AXIS), (rank ?x), (+ A B), (* A B) or (mod A B)");
}

// Values are expressions over the symbols (ir/symbolic_dim.h), so that a dimension that is
// symbolic is never read as its handle: a plain integer or a size is a constant.
using Value = ir::DimExpr;

// a mod b (C++'s %, as for sizes) where it is the same at every value of the symbols; nullopt
// otherwise.
std::optional<Value> modulo(const Value& a, const Value& b) {
  auto divisor = b.as_constant();
  if (auto dividend = a.as_constant(); dividend && divisor) {
    if (*divisor == 0) return std::nullopt;
    if (*divisor == -1) return Value();  // INT64_MIN % -1 overflows
    return Value::constant(*dividend % *divisor);
  }
  if (!divisor) {
    // A symbolic divisor: 0 where the dividend is a multiple of it (batch*seq mod seq), and the
    // divisor is never 0.
    auto least = ir::least_bound(b);
    auto quotient = a.divided_by(b);
    if (least && *least >= 1 && quotient && quotient->denominator() == 1) return Value();
    return std::nullopt;
  }
  if (*divisor == 0 || *divisor == std::numeric_limits<int64_t>::min()) return std::nullopt;
  // a = rest + c with rest a multiple of the divisor at every value (its coefficients are):
  // a mod divisor is c's, whose sign follows a's (never negative here).
  auto least = ir::least_bound(a);
  if (!least || *least < 0 || a.denominator() != 1) return std::nullopt;
  ir::SymbolBinding zeros;
  for (ir::SymbolId id : a.symbols()) zeros[ir::symbol_name(id)] = 0;
  auto constant_term = a.evaluate(zeros);
  if (!constant_term) return std::nullopt;
  int64_t magnitude = *divisor < 0 ? -*divisor : *divisor;
  if (!(a - Value::constant(*constant_term)).provably_divisible_by(magnitude)) return std::nullopt;
  return Value::constant(((*constant_term % magnitude) + magnitude) % magnitude);
}

std::optional<Value> evaluate(const IntExpression& expr, const ConditionContext& context) {
  switch (expr.kind) {
    case IntExpression::Kind::Literal:
      return Value::constant(expr.value);
    case IntExpression::Kind::Attribute: {
      auto value = context.attribute_of(expr.variable);
      if (!value) return std::nullopt;
      return int_expression(*value);
    }
    case IntExpression::Kind::Rank: {
      auto dims = context.dims_of(expr.variable);
      if (!dims) return std::nullopt;
      return Value::constant(static_cast<int64_t>(dims->size()));
    }
    case IntExpression::Kind::Dim: {
      auto dims = context.dims_of(expr.variable);
      if (!dims) return std::nullopt;
      auto rank = static_cast<int64_t>(dims->size());
      int64_t axis = expr.value < 0 ? expr.value + rank : expr.value;
      if (axis < 0 || axis >= rank) return std::nullopt;
      return int_expression((*dims)[axis]);
    }
    case IntExpression::Kind::Arithmetic: {
      auto a = evaluate(expr.operands[0], context);
      auto b = evaluate(expr.operands[1], context);
      if (!a || !b) return std::nullopt;
      try {
        if (expr.variable == "+") return *a + *b;
        if (expr.variable == "*") return *a * *b;
        return modulo(*a, *b);
      } catch (const Error&) {
        return std::nullopt;  // int64 overflow
      }
    }
  }
  return std::nullopt;
}

std::string expression_text(const IntExpression& expr) {
  switch (expr.kind) {
    case IntExpression::Kind::Literal:
      return std::to_string(expr.value);
    case IntExpression::Kind::Attribute:
      return "?" + expr.variable;
    case IntExpression::Kind::Rank:
      return "(rank ?" + expr.variable + ")";
    case IntExpression::Kind::Dim:
      return "(dim ?" + expr.variable + " " + std::to_string(expr.value) + ")";
    case IntExpression::Kind::Arithmetic:
      return "(" + expr.variable + " " + expression_text(expr.operands[0]) + " " +
             expression_text(expr.operands[1]) + ")";
  }
  return "?";
}

void collect(const IntExpression& expr, std::vector<std::string>& out) {
  if (expr.kind != IntExpression::Kind::Arithmetic && expr.kind != IntExpression::Kind::Literal) {
    out.push_back(expr.variable);
  }
  for (const auto& operand : expr.operands) collect(operand, out);
}

constexpr std::pair<const char*, Condition::Compare> kComparisons[] = {
    {"=", Condition::Compare::Eq},  {"!=", Condition::Compare::Ne}, {"<", Condition::Compare::Lt},
    {"<=", Condition::Compare::Le}, {">", Condition::Compare::Gt},  {">=", Condition::Compare::Ge},
};

}  // namespace

Condition parse_condition(const SExpr& expr) {
  if (expr.kind == SExpr::Kind::List && expr.items.size() == 3 &&
      expr.items[0].kind == SExpr::Kind::Symbol) {
    for (const auto& [name, compare] : kComparisons) {
      if (expr.items[0].text == name) {
        return {compare, parse_expression(expr.items[1]), parse_expression(expr.items[2]),
                expr.location};
      }
    }
  }
  fail(expr, "expected a condition (= A B), (!= A B), (< A B), (<= A B), (> A B) or (>= A B)");
}

bool holds(const Condition& condition, const ConditionContext& context) {
  auto a = evaluate(condition.left, context);
  auto b = evaluate(condition.right, context);
  if (!a || !b) return false;
  // Decided on b - a's normal form: a comparison holds when it holds at every value of the
  // symbols (for sizes, exactly when it holds).
  std::optional<Value> gap;
  std::optional<Value> back;  // a - b
  try {
    gap = *b - *a;
    back = *a - *b;
  } catch (const Error&) {
    return false;  // int64 overflow
  }
  auto at_least = [](const Value& value, int64_t bound) {
    auto least = ir::least_bound(value);
    return least && *least >= bound;
  };
  switch (condition.compare) {
    case Condition::Compare::Eq:
      return *a == *b;
    case Condition::Compare::Ne:
      return at_least(*gap, 1) || at_least(*back, 1);
    case Condition::Compare::Lt:
      return at_least(*gap, 1);
    case Condition::Compare::Le:
      return at_least(*gap, 0);
    case Condition::Compare::Gt:
      return at_least(*back, 1);
    case Condition::Compare::Ge:
      return at_least(*back, 0);
  }
  return false;
}

std::vector<std::string> condition_variables(const Condition& condition) {
  std::vector<std::string> names;
  collect(condition.left, names);
  collect(condition.right, names);
  return names;
}

std::string Condition::to_string() const {
  for (const auto& [name, compare_kind] : kComparisons) {
    if (compare_kind == compare) {
      return std::string("(") + name + " " + expression_text(left) + " " + expression_text(right) +
             ")";
    }
  }
  return "?";
}

}  // namespace saturate::eqsat
