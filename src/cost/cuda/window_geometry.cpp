#include "cost/cuda/window_geometry.h"

#include <algorithm>
#include <string>

#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

// One axis: where cuDNN pads symmetrically and where the input is pre-padded instead.
struct AxisPlan {
  int64_t input_size;
  int64_t cudnn_pad;
  AxisPadding padding;
};

AxisPlan plan_axis(int64_t size, int64_t kernel, int64_t stride, ir::Padding padding) {
  if (kernel <= 0 || stride <= 0) {
    throw Error("window kernel and stride must be positive, got kernel " + std::to_string(kernel) +
                " and stride " + std::to_string(stride));
  }
  AxisPadding pads = window_padding(size, kernel, stride, padding);
  if (pads.symmetric()) return {size, pads.before, pads};
  return {size + pads.before + pads.after, 0, pads};
}

}  // namespace

AxisPadding window_padding(int64_t size, int64_t kernel, int64_t stride, ir::Padding padding) {
  if (padding == ir::Padding::Valid) return {};
  const int64_t out = (size + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

int64_t cudnn_output_size(int64_t size, int64_t kernel, int64_t stride, int64_t pad) {
  return (size + 2 * pad - kernel) / stride + 1;
}

WindowGeometry window_geometry(const ir::Dims& input, int64_t channels_out, int64_t kernel_h,
                               int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                               ir::Padding padding) {
  if (input.size() != 4) {
    throw Error("a conv or pool input must be NCHW (rank 4), got " + ir::to_string(input));
  }
  const AxisPlan rows = plan_axis(input[2], kernel_h, stride_h, padding);
  const AxisPlan cols = plan_axis(input[3], kernel_w, stride_w, padding);
  WindowGeometry geometry;
  geometry.input = {input[0], input[1], rows.input_size, cols.input_size};
  geometry.output = {input[0], channels_out,
                     cudnn_output_size(rows.input_size, kernel_h, stride_h, rows.cudnn_pad),
                     cudnn_output_size(cols.input_size, kernel_w, stride_w, cols.cudnn_pad)};
  geometry.kernel_h = kernel_h;
  geometry.kernel_w = kernel_w;
  geometry.stride_h = stride_h;
  geometry.stride_w = stride_w;
  geometry.pad_h = rows.cudnn_pad;
  geometry.pad_w = cols.cudnn_pad;
  geometry.rows = rows.padding;
  geometry.cols = cols.padding;
  geometry.explicit_padding = !rows.padding.symmetric() || !cols.padding.symmetric();
  return geometry;
}

WindowGeometry conv_geometry(const OpConfig& config) {
  if (config.op != ir::OpKind::Conv2d || config.inputs.size() != 2 ||
      config.inputs[1].rank() != 4) {
    throw Error("conv_geometry needs a conv2d configuration with an OIHW weight");
  }
  const ir::Dims& weight = config.inputs[1].dims;
  return window_geometry(config.inputs[0].dims, weight[0], weight[2], weight[3],
                         config.attrs.get_int("stride_h"), config.attrs.get_int("stride_w"),
                         config.attrs.get_padding());
}

WindowGeometry pool_geometry(const OpConfig& config) {
  if ((config.op != ir::OpKind::PoolMax && config.op != ir::OpKind::PoolAvg) ||
      config.inputs.size() != 1 || config.inputs[0].rank() != 4) {
    throw Error("pool_geometry needs a poolmax or poolavg configuration with an NCHW input");
  }
  const ir::Dims& input = config.inputs[0].dims;
  return window_geometry(input, input[1], config.attrs.get_int("kernel_h"),
                         config.attrs.get_int("kernel_w"), config.attrs.get_int("stride_h"),
                         config.attrs.get_int("stride_w"), config.attrs.get_padding());
}

int64_t conv_groups(const OpConfig& config) {
  const int64_t group_channels = config.inputs.at(1).dims.at(1);
  if (group_channels <= 0) throw Error("conv2d weight dim 1 must be positive");
  return config.inputs.at(0).dims.at(1) / group_channels;
}

}  // namespace saturate::cost::gpu
