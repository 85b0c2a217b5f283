#pragma once

// Axis and stride arithmetic every part shares: negative axes count from the end (ONNX and
// PyTorch alike), and row-major strides.
#include <cstdint>
#include <optional>
#include <vector>

namespace saturate::ir {

// `axis` in [-rank, rank) as a position in [0, rank); nullopt when out of range, for the caller
// to report in its own terms (a shape error, an operator import keeps opaque, a fold not done).
inline std::optional<int64_t> normalized_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

// Element strides of a row-major tensor: strides[i] = product(dims[i+1:]).
inline std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

}  // namespace saturate::ir
