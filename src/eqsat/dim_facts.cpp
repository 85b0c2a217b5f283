#include "eqsat/dim_facts.h"

#include "support/error.h"

namespace saturate::eqsat {

std::optional<ir::DimExpr> int_expression(int64_t value) {
  if (!ir::is_symbolic(value)) return ir::DimExpr::constant(value);
  try {
    return ir::to_expr(value);
  } catch (const Error&) {
    return std::nullopt;
  }
}

namespace {

// A lower bound on b - a over every value of the symbols, when one is known (a or b symbolic).
std::optional<int64_t> least_gap(int64_t a, int64_t b) {
  auto ea = int_expression(a);
  auto eb = int_expression(b);
  if (!ea || !eb) return std::nullopt;
  try {
    return ir::least_bound(*eb - *ea);
  } catch (const Error&) {
    return std::nullopt;  // overflow
  }
}

}  // namespace

bool provably_at_most(int64_t a, int64_t b) {
  if (!ir::is_symbolic(a) && !ir::is_symbolic(b)) return a <= b;
  auto gap = least_gap(a, b);
  return gap && *gap >= 0;
}

bool provably_less(int64_t a, int64_t b) {
  if (!ir::is_symbolic(a) && !ir::is_symbolic(b)) return a < b;
  auto gap = least_gap(a, b);
  return gap && *gap >= 1;
}

bool always_dimension(const ir::DimExpr& size) {
  if (auto value = size.as_constant()) return *value > 0;
  if (size.symbols().empty()) return false;  // a fraction
  auto least = ir::least_bound(size);
  return least && *least >= 0;
}

bool cut_inside(int64_t cut, int64_t size) {
  auto c = int_expression(cut);
  auto s = int_expression(size);
  if (!c || !s) return false;
  try {
    return always_dimension(*c) && always_dimension(*s - *c);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace saturate::eqsat
