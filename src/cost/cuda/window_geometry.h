#pragma once

#include <cstdint>

#include "cost/cost_model.h"
#include "ir/attribute.h"
#include "ir/tensor_type.h"

namespace saturate::cost::gpu {

// Padding of one spatial axis of a sliding window (conv or pool), in elements.
struct AxisPadding {
  int64_t before = 0;
  int64_t after = 0;
  bool symmetric() const { return before == after; }
};

// The IR's padding of one axis: VALID pads nothing; SAME pads (out - 1) * stride + kernel - size
// in total (never negative) with the odd element at the end, as the reference interpreter does.
AxisPadding window_padding(int64_t size, int64_t kernel, int64_t stride, ir::Padding padding);

// What cuDNN's output-size formula gives for a symmetric padding `pad` on both sides.
int64_t cudnn_output_size(int64_t size, int64_t kernel, int64_t stride, int64_t pad);

// A conv or pool configuration as cuDNN is given it. cuDNN pads both ends of an axis by the same
// amount, so an axis whose SAME padding is asymmetric (an odd total, e.g. a 3x3 stride-2 window
// on an even size) is padded explicitly instead: the timed kernel reads an input already padded
// on that axis and cuDNN pads nothing there. Writing the producer's result into a padded buffer
// is left out of the timing, as a runtime that plans buffers does it for free.
struct WindowGeometry {
  ir::Dims input;   // NCHW dims of the tensor the kernel reads (pre-padded where explicit)
  ir::Dims output;  // NCHW, equal to the IR's inferred output dims
  int64_t kernel_h = 1;
  int64_t kernel_w = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;  // symmetric padding cuDNN applies on each side of the rows
  int64_t pad_w = 0;  // ... and of the columns
  AxisPadding rows;   // the IR's padding, for reports and tests
  AxisPadding cols;
  bool explicit_padding = false;  // some axis is pre-padded (asymmetric SAME padding)
};

// Geometry of a window over an NCHW input; `channels_out` is the output's dim 1 (the conv's
// output channels, the input's channels for a pool). Throws saturate::Error on a rank other than
// 4 or a non-positive kernel or stride.
WindowGeometry window_geometry(const ir::Dims& input, int64_t channels_out, int64_t kernel_h,
                               int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                               ir::Padding padding);

// The geometry of a conv2d configuration (input NCHW, weight OIHW) and of a poolmax/poolavg one.
// Throw saturate::Error on a configuration of another operator or with missing attributes.
WindowGeometry conv_geometry(const OpConfig& config);
WindowGeometry pool_geometry(const OpConfig& config);
// A conv2d's groups: input channels / weight dim 1 (1 when the weight sees every channel).
int64_t conv_groups(const OpConfig& config);

}  // namespace saturate::cost::gpu
