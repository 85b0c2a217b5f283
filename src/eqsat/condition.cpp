#include "eqsat/condition.h"

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

std::optional<int64_t> evaluate(const IntExpression& expr, const ConditionContext& context) {
  switch (expr.kind) {
    case IntExpression::Kind::Literal:
      return expr.value;
    case IntExpression::Kind::Attribute:
      return context.attribute_of(expr.variable);
    case IntExpression::Kind::Rank: {
      auto dims = context.dims_of(expr.variable);
      if (!dims) return std::nullopt;
      return static_cast<int64_t>(dims->size());
    }
    case IntExpression::Kind::Dim: {
      auto dims = context.dims_of(expr.variable);
      if (!dims) return std::nullopt;
      auto rank = static_cast<int64_t>(dims->size());
      int64_t axis = expr.value < 0 ? expr.value + rank : expr.value;
      if (axis < 0 || axis >= rank) return std::nullopt;
      return (*dims)[axis];
    }
    case IntExpression::Kind::Arithmetic: {
      auto a = evaluate(expr.operands[0], context);
      auto b = evaluate(expr.operands[1], context);
      if (!a || !b) return std::nullopt;
      if (expr.variable == "+") return *a + *b;
      if (expr.variable == "*") return *a * *b;
      if (*b == 0) return std::nullopt;
      return *a % *b;
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
  switch (condition.compare) {
    case Condition::Compare::Eq:
      return *a == *b;
    case Condition::Compare::Ne:
      return *a != *b;
    case Condition::Compare::Lt:
      return *a < *b;
    case Condition::Compare::Le:
      return *a <= *b;
    case Condition::Compare::Gt:
      return *a > *b;
    case Condition::Compare::Ge:
      return *a >= *b;
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
