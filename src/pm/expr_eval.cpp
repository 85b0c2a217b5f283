#include "pm/expr_eval.h"

#include <cmath>
#include <limits>

#include "pm/errors.h"
#include "pm/pattern_text.h"
#include "support/strings.h"

namespace saturate::pm {

namespace {

bool is_number(const ExprValue& value) {
  return std::holds_alternative<int64_t>(value) || std::holds_alternative<double>(value);
}

double as_double(const ExprValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  return std::get<double>(value);
}

// Python's floor division and modulo on integers (rounding toward negative infinity).
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

class Evaluator {
 public:
  Evaluator(const ExprScope& scope, ErrorPlace where) : scope_(scope), where_(where) {}

  ExprValue eval(const Expr& expr) const {
    switch (expr.tag) {
      case Expr::Tag::Int:
        return expr.int_value;
      case Expr::Tag::Float:
        return expr.float_value;
      case Expr::Tag::Bool:
        return expr.bool_value;
      case Expr::Tag::String:
        return expr.text;
      case Expr::Tag::Ints:
        return expr.ints;
      case Expr::Tag::Rank:
        return static_cast<int64_t>(type(expr).rank());
      case Expr::Tag::Dim:
        return dim(expr);
      case Expr::Tag::Numel:
        return type(expr).num_elements();
      case Expr::Tag::DType:
        return std::string(ir::to_string(type(expr).dtype));
      case Expr::Tag::OpName:
        bound(expr);
        return std::string(ir::to_string(scope_.op_of(expr.var)));
      case Expr::Tag::Attr:
        return attribute(expr);
      case Expr::Tag::Shape:
        return type(expr).dims;
      case Expr::Tag::Not:
        return !as_bool(eval(expr.operands.at(0)), expr);
      case Expr::Tag::Neg:
        return negate(eval(expr.operands.at(0)), expr);
      case Expr::Tag::Binary:
        return binary(expr);
      case Expr::Tag::In: {
        ExprValue needle = eval(expr.operands.at(0));
        for (size_t i = 1; i < expr.operands.size(); ++i) {
          if (loosely_equal(needle, eval(expr.operands[i]))) return true;
        }
        return false;
      }
    }
    fail(expr, "unknown expression");
  }

  [[noreturn]] void fail(const Expr& expr, const std::string& what) const {
    throw PatternError(where_() + ": in `" + text(expr) + "`: " + what);
  }

  std::string text(const Expr& expr) const {
    std::vector<Var> vars;
    for (uint32_t v = 0; v < scope_.num_variables(); ++v) vars.push_back(scope_.variable(v));
    return to_string(expr, vars);
  }

  bool as_bool(const ExprValue& value, const Expr& expr) const {
    if (const auto* b = std::get_if<bool>(&value)) return *b;
    fail(expr, "expected a bool, got " + kind_name(value) + " " + to_string(value));
  }

 private:
  void bound(const Expr& expr) const {
    if (!scope_.is_bound(expr.var)) {
      fail(expr, "variable '" + scope_.variable(expr.var).name + "' is not bound yet");
    }
  }

  const ir::TensorType& type(const Expr& expr) const {
    bound(expr);
    return scope_.type_of(expr.var);
  }

  ExprValue dim(const Expr& expr) const {
    const ir::TensorType& t = type(expr);
    ExprValue index_value = eval(expr.operands.at(0));
    const auto* index = std::get_if<int64_t>(&index_value);
    if (index == nullptr) fail(expr, "a shape index must be an int, got " + kind_name(index_value));
    int64_t i = *index < 0 ? *index + t.rank() : *index;
    if (i < 0 || i >= t.rank()) {
      fail(expr, "index " + std::to_string(*index) + " is out of range for shape " +
                     ir::to_string(t.dims));
    }
    return t.dims[static_cast<size_t>(i)];
  }

  ExprValue attribute(const Expr& expr) const {
    bound(expr);
    ir::OpKind op = scope_.op_of(expr.var);
    const ir::Attributes& attrs = scope_.attrs_of(expr.var);
    const ir::AttrValue* value = attrs.find(expr.text);
    if (value == nullptr) {
      fail(expr, "operator '" + std::string(ir::to_string(op)) + "' has no attribute '" +
                     expr.text + "'");
    }
    return attribute_value(*value, ir::op_info(op).find_attribute(expr.text));
  }

  ExprValue negate(const ExprValue& value, const Expr& expr) const {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      if (*i == std::numeric_limits<int64_t>::min()) fail(expr, "integer overflow");
      return -*i;
    }
    if (const auto* d = std::get_if<double>(&value)) return -*d;
    fail(expr, "cannot negate a " + kind_name(value));
  }

  ExprValue binary(const Expr& expr) const {
    const Expr& lhs_expr = expr.operands.at(0);
    const Expr& rhs_expr = expr.operands.at(1);
    // `and` and `or` short-circuit, so that `x.shape.rank >= 2 and x.shape[-2] == 4` is safe.
    if (expr.op == BinaryOp::And) {
      return as_bool(eval(lhs_expr), expr) && as_bool(eval(rhs_expr), expr);
    }
    if (expr.op == BinaryOp::Or) {
      return as_bool(eval(lhs_expr), expr) || as_bool(eval(rhs_expr), expr);
    }
    ExprValue lhs = eval(lhs_expr);
    ExprValue rhs = eval(rhs_expr);
    switch (expr.op) {
      case BinaryOp::Eq:
        return equal(lhs, rhs, expr);
      case BinaryOp::Ne:
        return !equal(lhs, rhs, expr);
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
        return order(expr.op, lhs, rhs, expr);
      default:
        return arithmetic(expr.op, lhs, rhs, expr);
    }
  }

  bool equal(const ExprValue& lhs, const ExprValue& rhs, const Expr& expr) const {
    if (is_number(lhs) && is_number(rhs)) return loosely_equal(lhs, rhs);
    if (lhs.index() != rhs.index()) {
      fail(expr, "cannot compare " + kind_name(lhs) + " " + to_string(lhs) + " with " +
                     kind_name(rhs) + " " + to_string(rhs));
    }
    return lhs == rhs;
  }

  bool order(BinaryOp op, const ExprValue& lhs, const ExprValue& rhs, const Expr& expr) const {
    int sign = 0;  // <0, 0, >0 like a three-way comparison
    if (is_number(lhs) && is_number(rhs)) {
      if (std::holds_alternative<int64_t>(lhs) && std::holds_alternative<int64_t>(rhs)) {
        int64_t a = std::get<int64_t>(lhs);
        int64_t b = std::get<int64_t>(rhs);
        sign = a < b ? -1 : (a > b ? 1 : 0);
      } else {
        double a = as_double(lhs);
        double b = as_double(rhs);
        if (std::isnan(a) || std::isnan(b)) return false;
        sign = a < b ? -1 : (a > b ? 1 : 0);
      }
    } else if (lhs.index() == rhs.index() && (std::holds_alternative<std::string>(lhs) ||
                                              std::holds_alternative<std::vector<int64_t>>(lhs))) {
      sign = lhs < rhs ? -1 : (rhs < lhs ? 1 : 0);
    } else {
      fail(expr, "cannot order " + kind_name(lhs) + " and " + kind_name(rhs));
    }
    switch (op) {
      case BinaryOp::Lt:
        return sign < 0;
      case BinaryOp::Le:
        return sign <= 0;
      case BinaryOp::Gt:
        return sign > 0;
      default:
        return sign >= 0;
    }
  }

  ExprValue arithmetic(BinaryOp op, const ExprValue& lhs, const ExprValue& rhs,
                       const Expr& expr) const {
    if (op == BinaryOp::Add && lhs.index() == rhs.index()) {
      if (const auto* a = std::get_if<std::string>(&lhs)) return *a + std::get<std::string>(rhs);
      if (const auto* a = std::get_if<std::vector<int64_t>>(&lhs)) {
        std::vector<int64_t> joined = *a;
        const auto& b = std::get<std::vector<int64_t>>(rhs);
        joined.insert(joined.end(), b.begin(), b.end());
        return joined;
      }
    }
    if (!is_number(lhs) || !is_number(rhs)) {
      fail(expr,
           "cannot apply '" + to_string(op) + "' to " + kind_name(lhs) + " and " + kind_name(rhs));
    }
    if (std::holds_alternative<int64_t>(lhs) && std::holds_alternative<int64_t>(rhs) &&
        op != BinaryOp::Div) {
      return integer_arithmetic(op, std::get<int64_t>(lhs), std::get<int64_t>(rhs), expr);
    }
    double a = as_double(lhs);
    double b = as_double(rhs);
    switch (op) {
      case BinaryOp::Add:
        return a + b;
      case BinaryOp::Sub:
        return a - b;
      case BinaryOp::Mul:
        return a * b;
      case BinaryOp::Div:
        if (b == 0) fail(expr, "division by zero");
        return a / b;
      case BinaryOp::FloorDiv:
        if (b == 0) fail(expr, "division by zero");
        return std::floor(a / b);
      case BinaryOp::Mod: {
        if (b == 0) fail(expr, "division by zero");
        double r = std::fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        return r;
      }
      default:
        fail(expr, "unknown arithmetic operator");
    }
  }

  ExprValue integer_arithmetic(BinaryOp op, int64_t a, int64_t b, const Expr& expr) const {
    int64_t result = 0;
    switch (op) {
      case BinaryOp::Add:
        if (__builtin_add_overflow(a, b, &result)) fail(expr, "integer overflow");
        return result;
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(a, b, &result)) fail(expr, "integer overflow");
        return result;
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(a, b, &result)) fail(expr, "integer overflow");
        return result;
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod:
        if (b == 0) fail(expr, "division by zero");
        if (a == std::numeric_limits<int64_t>::min() && b == -1) {
          if (op == BinaryOp::Mod) return int64_t{0};
          fail(expr, "integer overflow");
        }
        return op == BinaryOp::FloorDiv ? floor_div(a, b) : floor_mod(a, b);
      default:
        fail(expr, "unknown arithmetic operator");
    }
  }

 public:
  // Equality without errors: values of different kinds are simply unequal.
  static bool loosely_equal(const ExprValue& lhs, const ExprValue& rhs) {
    if (is_number(lhs) && is_number(rhs)) {
      if (std::holds_alternative<int64_t>(lhs) && std::holds_alternative<int64_t>(rhs)) {
        return std::get<int64_t>(lhs) == std::get<int64_t>(rhs);
      }
      return as_double(lhs) == as_double(rhs);
    }
    return lhs == rhs;
  }

 private:
  const ExprScope& scope_;
  ErrorPlace where_;
};

}  // namespace

std::string kind_name(const ExprValue& value) {
  switch (value.index()) {
    case 0:
      return "int";
    case 1:
      return "float";
    case 2:
      return "bool";
    case 3:
      return "string";
    default:
      return "list of ints";
  }
}

std::string to_string(const ExprValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return format_double(*d);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "True" : "False";
  if (const auto* s = std::get_if<std::string>(&value)) return "\"" + *s + "\"";
  return "[" + join_ints(std::get<std::vector<int64_t>>(value)) + "]";
}

ExprValue evaluate(const Expr& expr, const ExprScope& scope, ErrorPlace where) {
  return Evaluator(scope, where).eval(expr);
}

bool evaluate_guard(const Expr& expr, const ExprScope& scope, ErrorPlace where) {
  Evaluator evaluator(scope, where);
  ExprValue value = evaluator.eval(expr);
  if (const auto* b = std::get_if<bool>(&value)) return *b;
  evaluator.fail(expr,
                 "a guard must be a bool, this is " + kind_name(value) + " " + to_string(value));
}

ExprValue attribute_value(const ir::AttrValue& value, const ir::AttrSpec* spec) {
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (spec != nullptr && spec->kind == ir::AttrKind::Activation && *i >= 0 &&
        *i < static_cast<int64_t>(std::size(ir::kActivations))) {
      return std::string(ir::to_string(static_cast<ir::Activation>(*i)));
    }
    if (spec != nullptr && spec->kind == ir::AttrKind::Padding && *i >= 0 && *i <= 1) {
      return std::string(ir::to_string(static_cast<ir::Padding>(*i)));
    }
    return *i;
  }
  if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) return *ints;
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::get<std::string>(value);
}

std::optional<ir::AttrValue> to_attribute(const ExprValue& value, ir::AttrKind kind) {
  switch (kind) {
    case ir::AttrKind::Int:
      if (const auto* i = std::get_if<int64_t>(&value)) return *i;
      return std::nullopt;
    case ir::AttrKind::Ints:
      if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) return *ints;
      return std::nullopt;
    case ir::AttrKind::Float:
      if (is_number(value)) return as_double(value);
      return std::nullopt;
    case ir::AttrKind::String:
      if (const auto* s = std::get_if<std::string>(&value)) return *s;
      return std::nullopt;
    case ir::AttrKind::Activation:
      if (const auto* s = std::get_if<std::string>(&value)) {
        if (auto a = ir::parse_activation(*s)) return static_cast<int64_t>(*a);
      }
      if (const auto* i = std::get_if<int64_t>(&value)) return *i;
      return std::nullopt;
    case ir::AttrKind::Padding:
      if (const auto* s = std::get_if<std::string>(&value)) {
        if (auto p = ir::parse_padding(*s)) return static_cast<int64_t>(*p);
      }
      if (const auto* i = std::get_if<int64_t>(&value)) return *i;
      return std::nullopt;
  }
  return std::nullopt;
}

bool attribute_matches(const ir::AttrValue& actual, const ir::AttrSpec* spec,
                       const ExprValue& wanted) {
  if (spec != nullptr) {
    std::optional<ir::AttrValue> converted = to_attribute(wanted, spec->kind);
    if (!converted) return false;
    if (const auto* a = std::get_if<double>(&actual)) {
      return close_enough(*a, std::get<double>(*converted));
    }
    return actual == *converted;
  }
  return Evaluator::loosely_equal(attribute_value(actual, nullptr), wanted);
}

bool close_enough(double a, double b) {
  if (a == b) return true;
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace saturate::pm
