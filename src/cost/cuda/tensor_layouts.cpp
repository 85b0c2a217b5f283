#include "cost/cuda/tensor_layouts.h"

#include <limits>

#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

int64_t product(ir::Dims::const_iterator begin, ir::Dims::const_iterator end) {
  int64_t p = 1;
  for (auto it = begin; it != end; ++it) p *= *it;
  return p;
}

}  // namespace

ir::Dims nchw_dims(const ir::Dims& dims) {
  if (dims.size() <= 4) {
    ir::Dims padded(4 - dims.size(), 1);
    padded.insert(padded.end(), dims.begin(), dims.end());
    return padded;
  }
  const auto tail = dims.end() - 3;
  return {product(dims.begin(), tail), tail[0], tail[1], tail[2]};
}

ir::Dims softmax_dims(const ir::Dims& dims, int64_t axis) {
  const auto rank = static_cast<int64_t>(dims.size());
  if (axis < -rank || axis >= rank) {
    throw Error("softmax axis " + std::to_string(axis) + " is out of range for " +
                ir::to_string(dims));
  }
  const auto at = dims.begin() + (axis < 0 ? axis + rank : axis);
  return {product(dims.begin(), at), *at, product(at + 1, dims.end()), 1};
}

ir::Dims batchnorm_dims(const ir::Dims& dims) {
  if (dims.size() < 2) throw Error("batchnorm needs rank >= 2, got " + ir::to_string(dims));
  return {dims[0], dims[1], product(dims.begin() + 2, dims.end()), 1};
}

bool fits_cudnn(const ir::Dims& dims) {
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d <= 0 || d > kMaxInt / count) return false;
    count *= d;
  }
  return true;
}

}  // namespace saturate::cost::gpu
