#pragma once

// What the rules may assume about dimensions that may be symbolic (ir/symbolic_dim.h): facts
// that hold for every value of the symbols at or above their lower bounds, decided on the
// normal form. What is not proved is false: a rule's condition, a split's cut or a boundary
// that holds only at some sizes does not count. Never compare a dim with < or > directly: a
// symbolic dim is a huge negative handle.
#include <cstdint>
#include <optional>

#include "ir/symbolic_dim.h"

namespace saturate::eqsat {

// The expression of an integer: a size, a symbolic dim's expression, or a plain integer (an
// axis, an attribute; it may be negative). nullopt for a handle no expression is interned for.
std::optional<ir::DimExpr> int_expression(int64_t value);

// a <= b, a < b at every value of the symbols (each a dim or a plain integer).
bool provably_at_most(int64_t a, int64_t b);
bool provably_less(int64_t a, int64_t b);

// Whether `size` is a tensor dimension at every value of the symbols: a positive size, or a
// symbolic expression never negative (it may be 0 where a symbol's lower bound is 0, as
// ir::shape_problem allows).
bool always_dimension(const ir::DimExpr& size);
// Whether cutting an axis of `size` at `cut` leaves two parts that are dimensions at every
// value of the symbols (0 < cut < size for sizes).
bool cut_inside(int64_t cut, int64_t size);

}  // namespace saturate::eqsat
