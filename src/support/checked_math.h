#pragma once

// Integer arithmetic on sizes read from untrusted files (ONNX models, .sxp graphs): the result,
// or nullopt where int64 would overflow.
#include <cstdint>
#include <optional>
#include <vector>

namespace saturate {

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// The product of `dims`; nullopt when a dimension is negative or the product overflows.
inline std::optional<int64_t> checked_product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    auto next = checked_mul(product, d);
    if (!next) return std::nullopt;
    product = *next;
  }
  return product;
}

}  // namespace saturate
