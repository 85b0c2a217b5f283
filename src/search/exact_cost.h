#pragma once

#include <cmath>
#include <cstdint>

namespace saturate::search {

// A graph cost in whole picoseconds. The search compares and orders graphs by cost, and graphs
// that differ only in operator order (x + y and y + x) must cost exactly the same, which a sum of
// doubles in visiting order does not guarantee; integer sums do not depend on order.
using ExactCost = int64_t;

inline ExactCost exact_cost(double milliseconds) {
  return std::llround(milliseconds * 1e9);
}
inline double milliseconds(ExactCost cost) {
  return static_cast<double>(cost) * 1e-9;
}

}  // namespace saturate::search
