#pragma once

// Row-major index arithmetic shared by the interpreter's kernels (internal header).

#include <cstdint>
#include <vector>

#include "ir/axes.h"
#include "ir/tensor_type.h"

namespace saturate::runtime::detail {

// Product of dims[begin:end].
int64_t product(const ir::Dims& dims, size_t begin, size_t end);
inline int64_t product(const ir::Dims& dims) {
  return product(dims, 0, dims.size());
}

using ir::row_major_strides;

// Strides for reading a tensor of shape `dims` while walking the numpy broadcast shape `out`:
// aligned to out's rank from the right, 0 where `dims` is missing or 1 (the value repeats).
std::vector<int64_t> broadcast_strides(const ir::Dims& dims, const ir::Dims& out);

// Maps a possibly negative axis to [0, rank); throws saturate::Error when out of range.
int normalize_axis(int64_t axis, int rank);

// Steps a multi-index through `dims` in row-major order; returns false after the last one.
bool next_index(std::vector<int64_t>& index, const ir::Dims& dims);

}  // namespace saturate::runtime::detail
