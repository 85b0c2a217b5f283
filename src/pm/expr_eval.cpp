#include "pm/expr_eval.h"

#include <cmath>
#include <limits>

#include "ir/symbolic_dim.h"
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

// Symbolic dimensions (ir/symbolic_dim.h). An int in ir::is_symbolic's range is a
// symbolic dim's handle, as everywhere in the IR; the evaluator never orders or computes with a
// handle as a number. It decides each operation on the normal form, for every value of the
// symbols at or above their lower bounds, and throws Undecided where the answer depends on
// them (docs/PYPM.md, "Symbolic dimensions").

bool is_symbolic_int(const ExprValue& value) {
  const auto* i = std::get_if<int64_t>(&value);
  return i != nullptr && ir::is_symbolic(*i);
}

[[noreturn]] void undecided(const std::string& what) {
  throw Undecided(what + " depends on the values of symbolic dimensions");
}

bool at_least(const ir::DimExpr& expr, int64_t bound) {
  auto least = ir::least_bound(expr);
  return least && *least >= bound;
}

// The flipped comparison: a < b is b > a.
BinaryOp flipped(BinaryOp op) {
  switch (op) {
    case BinaryOp::Lt:
      return BinaryOp::Gt;
    case BinaryOp::Le:
      return BinaryOp::Ge;
    case BinaryOp::Gt:
      return BinaryOp::Lt;
    case BinaryOp::Ge:
      return BinaryOp::Le;
    default:
      return op;
  }
}

// A comparison of two ints, one of them symbolic: decided when b - a's lower bound decides it
// (or its normal form is 0), nullopt otherwise.
std::optional<bool> compare_dims(BinaryOp op, const ir::DimExpr& a, const ir::DimExpr& b) {
  ir::DimExpr up;    // b - a
  ir::DimExpr down;  // a - b
  try {
    up = b - a;
    down = a - b;
  } catch (const Error&) {
    return std::nullopt;  // the difference overflows int64: not decided
  }
  auto decide = [](bool proved, bool refuted) -> std::optional<bool> {
    if (proved) return true;
    if (refuted) return false;
    return std::nullopt;
  };
  switch (op) {
    case BinaryOp::Eq:
      return decide(a == b, at_least(up, 1) || at_least(down, 1));
    case BinaryOp::Ne:
      return decide(at_least(up, 1) || at_least(down, 1), a == b);
    case BinaryOp::Lt:
      return decide(at_least(up, 1), at_least(down, 0));
    case BinaryOp::Le:
      return decide(at_least(up, 0), at_least(down, 1));
    case BinaryOp::Gt:
      return decide(at_least(down, 1), at_least(up, 0));
    case BinaryOp::Ge:
      return decide(at_least(down, 0), at_least(up, 1));
    default:
      return std::nullopt;
  }
}

class Evaluator {
 public:
  Evaluator(const ExprScope& scope, ErrorPlace where) : scope_(scope), where_(where) {}

  ExprValue eval(const Expr& expr) const {
    switch (expr.tag) {
      case Expr::Tag::Int:
        return plain_int(expr.int_value, expr);
      case Expr::Tag::Float:
        return expr.float_value;
      case Expr::Tag::Bool:
        return expr.bool_value;
      case Expr::Tag::String:
        return expr.text;
      case Expr::Tag::Ints:
        for (int64_t i : expr.ints) plain_int(i, expr);
        return expr.ints;
      case Expr::Tag::List: {
        // Items are ints or dims (symbolic ones stay handles, as in a shape).
        std::vector<int64_t> items;
        for (const Expr& item : expr.operands) {
          ExprValue value = eval(item);
          const auto* i = std::get_if<int64_t>(&value);
          if (i == nullptr) fail(expr, "a list item must be an int, got " + kind_name(value));
          items.push_back(*i);
        }
        return items;
      }
      case Expr::Tag::Rank:
        return static_cast<int64_t>(type(expr).rank());
      case Expr::Tag::Dim:
        return dim(expr);
      case Expr::Tag::Numel:
        // The product of the dims: `batch*sequence*768` for a symbolic shape.
        try {
          return type(expr).element_count_dim();
        } catch (const Error&) {
          fail(expr, "integer overflow");
        }
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
      case Expr::Tag::Proven: {
        // The one place an undecided condition becomes an answer: false, so that a rule can
        // choose a form sound at every size (docs/PYPM.md).
        std::optional<bool> holds = decided(expr.operands.at(0), expr);
        return holds.value_or(false);
      }
      case Expr::Tag::Neg:
        return negate(eval(expr.operands.at(0)), expr);
      case Expr::Tag::Binary:
        return binary(expr);
      case Expr::Tag::In: {
        // True when the needle equals one item at every size, false when it differs from each
        // at every size; undecided otherwise (`batch in (1, 2)`).
        ExprValue needle = eval(expr.operands.at(0));
        bool maybe = false;
        for (size_t i = 1; i < expr.operands.size(); ++i) {
          std::optional<bool> equal = equal_values(needle, eval(expr.operands[i]), expr);
          if (equal && *equal) return true;
          if (!equal) maybe = true;
        }
        if (maybe) undecided("`" + text(expr) + "`");
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

  // An int that is no symbolic dim's handle: literals and plain arithmetic stay above
  // ir::kFirstSymbolicDim, so that a handle always names a dim.
  int64_t plain_int(int64_t value, const Expr& expr) const {
    if (ir::is_symbolic(value)) fail(expr, "integer out of range");
    return value;
  }

  // The expression of an int: a constant, or a symbolic dim's normal form.
  ir::DimExpr dim_expr(int64_t value, const Expr& expr) const {
    if (!ir::is_symbolic(value)) return ir::DimExpr::constant(value);
    try {
      return ir::to_expr(value);
    } catch (const Error&) {
      fail(expr, "unknown symbolic dimension " + std::to_string(value));
    }
  }

  // An expression's int: a constant as itself, any other as its interned handle.
  int64_t int_of(const ir::DimExpr& value, const Expr& expr) const {
    if (auto constant = value.as_constant()) return plain_int(*constant, expr);
    // A quotient that is no integer polynomial is not an int at every size.
    if (value.denominator() != 1) undecided("`" + text(expr) + "`");
    try {
      return ir::to_dim(value);
    } catch (const Error& error) {
      fail(expr, error.what());
    }
  }

  // ==, <, ... between two numbers, one of them a symbolic dim (the other an int or a float).
  std::optional<bool> compare_symbolic(BinaryOp op, const ExprValue& lhs, const ExprValue& rhs,
                                       const Expr& expr) const {
    if (!is_symbolic_int(lhs)) return compare_symbolic(flipped(op), rhs, lhs, expr);
    ir::DimExpr a = dim_expr(std::get<int64_t>(lhs), expr);
    if (const auto* i = std::get_if<int64_t>(&rhs)) return compare_dims(op, a, dim_expr(*i, expr));
    double x = std::get<double>(rhs);
    if (std::isnan(x)) return op == BinaryOp::Ne;  // as for numbers: only != holds
    // Beyond +-2^62 a float is no bound a dim comparison can use.
    constexpr double kRange = 4611686018427387904.0;
    if (!(std::fabs(x) < kRange)) return std::nullopt;
    if (x == std::floor(x)) {
      return compare_dims(op, a, ir::DimExpr::constant(static_cast<int64_t>(x)));
    }
    // A dim is an integer: it never equals a fraction, and d < 2.5 is d <= 2.
    switch (op) {
      case BinaryOp::Eq:
        return false;
      case BinaryOp::Ne:
        return true;
      case BinaryOp::Lt:
      case BinaryOp::Le:
        return compare_dims(BinaryOp::Le, a,
                            ir::DimExpr::constant(static_cast<int64_t>(std::floor(x))));
      default:
        return compare_dims(BinaryOp::Ge, a,
                            ir::DimExpr::constant(static_cast<int64_t>(std::ceil(x))));
    }
  }

  // Equality that may be undecided (nullopt): numbers (symbolic dims on their normal form),
  // lists item by item; values of different kinds are unequal.
  std::optional<bool> equal_values(const ExprValue& lhs, const ExprValue& rhs,
                                   const Expr& expr) const {
    if (is_number(lhs) && is_number(rhs)) {
      if (is_symbolic_int(lhs) || is_symbolic_int(rhs)) {
        return compare_symbolic(BinaryOp::Eq, lhs, rhs, expr);
      }
      return loosely_equal(lhs, rhs);
    }
    const auto* a = std::get_if<std::vector<int64_t>>(&lhs);
    const auto* b = std::get_if<std::vector<int64_t>>(&rhs);
    if (a == nullptr || b == nullptr) return lhs == rhs;
    if (a->size() != b->size()) return false;
    std::optional<bool> all = true;
    for (size_t k = 0; k < a->size(); ++k) {
      if ((*a)[k] == (*b)[k]) continue;
      std::optional<bool> item = equal_values((*a)[k], (*b)[k], expr);
      if (item && !*item) return false;
      if (!item) all = std::nullopt;
    }
    return all;
  }

  ExprValue dim(const Expr& expr) const {
    const ir::TensorType& t = type(expr);
    ExprValue index_value = eval(expr.operands.at(0));
    const auto* index = std::get_if<int64_t>(&index_value);
    if (index == nullptr) fail(expr, "a shape index must be an int, got " + kind_name(index_value));
    if (ir::is_symbolic(*index)) undecided("the shape index in `" + text(expr) + "`");
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
      if (ir::is_symbolic(*i)) {
        ir::DimExpr operand = dim_expr(*i, expr);
        ir::DimExpr negated;
        try {
          negated = ir::DimExpr::constant(-1) * operand;
        } catch (const Error&) {
          fail(expr, "integer overflow");
        }
        return int_of(negated, expr);
      }
      return plain_int(-*i, expr);
    }
    if (const auto* d = std::get_if<double>(&value)) return -*d;
    fail(expr, "cannot negate a " + kind_name(value));
  }

  ExprValue binary(const Expr& expr) const {
    const Expr& lhs_expr = expr.operands.at(0);
    const Expr& rhs_expr = expr.operands.at(1);
    // `and` and `or` short-circuit, so that `x.shape.rank >= 2 and x.shape[-2] == 4` is safe.
    // Over undecided operands they are Kleene's: `undecided or True` is True, `undecided and
    // False` is False, and otherwise undecided.
    if (expr.op == BinaryOp::And || expr.op == BinaryOp::Or) {
      const bool is_and = expr.op == BinaryOp::And;
      std::optional<bool> lhs = decided(lhs_expr, expr);
      if (lhs && *lhs != is_and) return *lhs;  // False and ..., True or ...
      if (lhs) return as_bool(eval(rhs_expr), expr);
      // The left side holds at some sizes only: the right side alone may decide.
      std::optional<bool> rhs;
      try {
        rhs = decided(rhs_expr, expr);
      } catch (const PatternError&) {
        rhs = std::nullopt;  // an error at the sizes where the left side holds: not decided
      }
      if (rhs && *rhs != is_and) return *rhs;
      undecided("`" + text(expr) + "`");
    }
    ExprValue lhs = eval(lhs_expr);
    ExprValue rhs = eval(rhs_expr);
    switch (expr.op) {
      case BinaryOp::Eq:
        return equal(lhs, rhs, expr);
      case BinaryOp::Ne:
        return !equal(lhs, rhs, expr);  // undecided equality stays undecided (throws)
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
    if (!(is_number(lhs) && is_number(rhs)) && lhs.index() != rhs.index()) {
      fail(expr, "cannot compare " + kind_name(lhs) + " " + to_string(lhs) + " with " +
                     kind_name(rhs) + " " + to_string(rhs));
    }
    std::optional<bool> result = equal_values(lhs, rhs, expr);
    if (!result) undecided("`" + text(expr) + "`");
    return *result;
  }

  // A bool operand, nullopt where it is undecided.
  std::optional<bool> decided(const Expr& operand, const Expr& expr) const {
    try {
      return as_bool(eval(operand), expr);
    } catch (const Undecided&) {
      return std::nullopt;
    }
  }

  // Lexicographic order of int lists whose items may be symbolic: -1, 0, 1, or nullopt where
  // the order depends on the sizes.
  std::optional<int> list_order(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                const Expr& expr) const {
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
      if (a[k] == b[k]) continue;
      if (!ir::is_symbolic(a[k]) && !ir::is_symbolic(b[k])) return a[k] < b[k] ? -1 : 1;
      ir::DimExpr x = dim_expr(a[k], expr);
      ir::DimExpr y = dim_expr(b[k], expr);
      std::optional<bool> less = compare_dims(BinaryOp::Lt, x, y);
      std::optional<bool> greater = compare_dims(BinaryOp::Gt, x, y);
      if (less && *less) return -1;
      if (greater && *greater) return 1;
      return std::nullopt;  // equal at some sizes, or ordered differently at others
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }

  bool order(BinaryOp op, const ExprValue& lhs, const ExprValue& rhs, const Expr& expr) const {
    int sign = 0;  // <0, 0, >0 like a three-way comparison
    if (is_number(lhs) && is_number(rhs) && (is_symbolic_int(lhs) || is_symbolic_int(rhs))) {
      std::optional<bool> result = compare_symbolic(op, lhs, rhs, expr);
      if (!result) undecided("`" + text(expr) + "`");
      return *result;
    }
    if (const auto* list = std::get_if<std::vector<int64_t>>(&lhs);
        list != nullptr && std::holds_alternative<std::vector<int64_t>>(rhs)) {
      std::optional<int> order = list_order(*list, std::get<std::vector<int64_t>>(rhs), expr);
      if (!order) undecided("`" + text(expr) + "`");
      sign = *order;
    } else if (is_number(lhs) && is_number(rhs)) {
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
    } else if (lhs.index() == rhs.index() && std::holds_alternative<std::string>(lhs)) {
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
    if (is_symbolic_int(lhs) || is_symbolic_int(rhs))
      return symbolic_arithmetic(op, lhs, rhs, expr);
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

  // Arithmetic with a symbolic dim: + - * build the normal form of the result; / and // give
  // the exact quotient where the divisor divides the dividend as polynomials; % by a constant
  // is decided on the coefficients. Anything else (a float operand, an inexact quotient)
  // depends on the sizes.
  ExprValue symbolic_arithmetic(BinaryOp op, const ExprValue& lhs, const ExprValue& rhs,
                                const Expr& expr) const {
    if (!std::holds_alternative<int64_t>(lhs) || !std::holds_alternative<int64_t>(rhs)) {
      undecided("`" + text(expr) + "` (a symbolic dimension with a float)");
    }
    ir::DimExpr a = dim_expr(std::get<int64_t>(lhs), expr);
    ir::DimExpr b = dim_expr(std::get<int64_t>(rhs), expr);
    std::optional<ir::DimExpr> result;
    try {
      switch (op) {
        case BinaryOp::Add:
          result = a + b;
          break;
        case BinaryOp::Sub:
          result = a - b;
          break;
        case BinaryOp::Mul:
          result = a * b;
          break;
        case BinaryOp::Div:
        case BinaryOp::FloorDiv:
          if (b == ir::DimExpr()) fail(expr, "division by zero");
          result = exact_quotient(a, b);
          break;
        case BinaryOp::Mod:
          if (b == ir::DimExpr()) fail(expr, "division by zero");
          result = modulo(a, b);
          break;
        default:
          fail(expr, "unknown arithmetic operator");
      }
    } catch (const PatternError&) {
      throw;
    } catch (const Error&) {
      fail(expr, "integer overflow");
    }
    if (!result) undecided("`" + text(expr) + "`");
    return int_of(*result, expr);
  }

  // a / b where it is an integer polynomial and b is never 0; nullopt otherwise.
  static std::optional<ir::DimExpr> exact_quotient(const ir::DimExpr& a, const ir::DimExpr& b) {
    if (!b.is_constant() && !at_least(b, 1)) return std::nullopt;
    std::optional<ir::DimExpr> quotient = a.divided_by(b);
    if (!quotient || quotient->denominator() != 1) return std::nullopt;
    return quotient;
  }

  // Python's a % b where it is the same at every value of the symbols: b a constant that
  // divides every coefficient of a but the constant term's (a % b is then the constant term's),
  // or b dividing a exactly (0).
  static std::optional<ir::DimExpr> modulo(const ir::DimExpr& a, const ir::DimExpr& b) {
    auto divisor = b.as_constant();
    if (!divisor) {
      if (exact_quotient(a, b)) return ir::DimExpr();
      return std::nullopt;
    }
    if (a.denominator() != 1 || *divisor == std::numeric_limits<int64_t>::min()) {
      return std::nullopt;
    }
    ir::SymbolBinding zeros;
    for (ir::SymbolId id : a.symbols()) zeros[ir::symbol_name(id)] = 0;
    std::optional<int64_t> constant_term = a.evaluate(zeros);
    if (!constant_term) return std::nullopt;
    int64_t magnitude = *divisor < 0 ? -*divisor : *divisor;
    if (!(a - ir::DimExpr::constant(*constant_term)).provably_divisible_by(magnitude)) {
      return std::nullopt;
    }
    return ir::DimExpr::constant(floor_mod(*constant_term, *divisor));
  }

  ExprValue integer_arithmetic(BinaryOp op, int64_t a, int64_t b, const Expr& expr) const {
    int64_t result = 0;
    switch (op) {
      case BinaryOp::Add:
        if (__builtin_add_overflow(a, b, &result)) fail(expr, "integer overflow");
        return plain_int(result, expr);
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(a, b, &result)) fail(expr, "integer overflow");
        return plain_int(result, expr);
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(a, b, &result)) fail(expr, "integer overflow");
        return plain_int(result, expr);
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod:
        if (b == 0) fail(expr, "division by zero");
        if (a == std::numeric_limits<int64_t>::min() && b == -1) {
          if (op == BinaryOp::Mod) return int64_t{0};
          fail(expr, "integer overflow");
        }
        return plain_int(op == BinaryOp::FloorDiv ? floor_div(a, b) : floor_mod(a, b), expr);
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
  // A symbolic dim as its expression: batch, past_sequence_length+sequence.
  if (const auto* i = std::get_if<int64_t>(&value)) return ir::dim_text(*i);
  if (const auto* d = std::get_if<double>(&value)) return format_double(*d);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "True" : "False";
  if (const auto* s = std::get_if<std::string>(&value)) return "\"" + *s + "\"";
  std::string text;
  for (int64_t i : std::get<std::vector<int64_t>>(value)) {
    text += (text.empty() ? "" : ", ") + ir::dim_text(i);
  }
  return "[" + text + "]";
}

ExprValue evaluate(const Expr& expr, const ExprScope& scope, ErrorPlace where) {
  return Evaluator(scope, where).eval(expr);
}

std::optional<ExprValue> evaluate_decided(const Expr& expr, const ExprScope& scope,
                                          ErrorPlace where) {
  try {
    return Evaluator(scope, where).eval(expr);
  } catch (const Undecided&) {
    return std::nullopt;
  }
}

bool evaluate_guard(const Expr& expr, const ExprScope& scope, ErrorPlace where) {
  Evaluator evaluator(scope, where);
  ExprValue value;
  try {
    value = evaluator.eval(expr);
  } catch (const Undecided&) {
    return false;  // not true at every size: the guard fails
  }
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

bool close_enough(double a, double b, ir::DType dtype) {
  if (a == b) return true;
  if (dtype == ir::DType::F16 || dtype == ir::DType::BF16) {
    return ir::round_to_precision(a, dtype) == ir::round_to_precision(b, dtype);
  }
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace saturate::pm
