#pragma once

#include <cstdint>

#include "ir/tensor_type.h"

namespace saturate::cost::gpu {

// How tensors of any rank are shown to cuDNN, whose descriptors take 4 or more NCHW-like axes of
// int size. Each function keeps the element count and row-major order.

// Element-wise view: rank < 4 is left-padded with 1s, rank > 4 merges the leading axes into N.
ir::Dims nchw_dims(const ir::Dims& dims);
// Softmax along `axis` (negative counts from the end) as cuDNN's channel mode sees it:
// [axes before, the axis, axes after, 1].
ir::Dims softmax_dims(const ir::Dims& dims, int64_t axis);
// Batch normalization over axis 1: [N, C, the remaining axes merged, 1].
ir::Dims batchnorm_dims(const ir::Dims& dims);
// Whether every axis and the element count fit cuDNN's int sizes and strides.
bool fits_cudnn(const ir::Dims& dims);

}  // namespace saturate::cost::gpu
