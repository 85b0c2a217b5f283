// poolmax / poolavg: cudnnPoolingForward, then cudnnActivationForward for a fused activation.
#include <string>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/cudnn_descriptors.h"
#include "cost/cuda/prepared_op.h"
#include "cost/cuda/window_geometry.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

class PreparedPool : public PreparedOp {
 public:
  PreparedPool(const OpConfig& config, GpuContext& context) : context_(context) {
    const WindowGeometry geometry = pool_geometry(config);
    // The IR's average excludes padding, as CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING does.
    const cudnnPoolingMode_t mode = config.op == ir::OpKind::PoolMax
                                        ? CUDNN_POOLING_MAX
                                        : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    cudnnPoolingDescriptor_t raw = nullptr;
    SATURATE_GPU_CHECK(cudnnCreatePoolingDescriptor(&raw));
    pool_desc_ = PoolingDescriptor(raw);
    SATURATE_GPU_CHECK(cudnnSetPooling2dDescriptor(
        raw, mode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(geometry.kernel_h),
        static_cast<int>(geometry.kernel_w), static_cast<int>(geometry.pad_h),
        static_cast<int>(geometry.pad_w), static_cast<int>(geometry.stride_h),
        static_cast<int>(geometry.stride_w)));
    x_desc_ = make_tensor_descriptor(geometry.input);
    y_desc_ = make_tensor_descriptor(geometry.output);
    int n = 0, c = 0, h = 0, w = 0;
    SATURATE_GPU_CHECK(cudnnGetPooling2dForwardOutputDim(raw, x_desc_.get(), &n, &c, &h, &w));
    if (ir::Dims{n, c, h, w} != geometry.output) {
      throw Error("cuDNN computes pool output " + ir::to_string(ir::Dims{n, c, h, w}) +
                  ", the IR " + ir::to_string(geometry.output));
    }
    x_ = context.buffer(0, float_bytes(geometry.input));
    y_ = context.buffer(kOutputSlot, float_bytes(geometry.output));
    if (auto activation = activation_mode(config.attrs.get_activation())) {
      activation_ = make_activation_descriptor(*activation);
    }
  }

  void run() override {
    const float one = 1;
    const float zero = 0;
    SATURATE_GPU_CHECK(cudnnPoolingForward(context_.cudnn(), pool_desc_.get(), &one, x_desc_.get(),
                                           x_, &zero, y_desc_.get(), y_));
    if (activation_) {
      SATURATE_GPU_CHECK(cudnnActivationForward(context_.cudnn(), activation_.get(), &one,
                                                y_desc_.get(), y_, &zero, y_desc_.get(), y_));
    }
  }

  std::string method() const override {
    return activation_ ? "cudnnPoolingForward + cudnnActivationForward" : "cudnnPoolingForward";
  }

 private:
  GpuContext& context_;
  PoolingDescriptor pool_desc_;
  TensorDescriptor x_desc_;
  TensorDescriptor y_desc_;
  ActivationDescriptor activation_;  // null without a fused activation
  float* x_ = nullptr;
  float* y_ = nullptr;
};

}  // namespace

std::unique_ptr<PreparedOp> prepare_pool(const OpConfig& config, GpuContext& context) {
  return std::make_unique<PreparedPool>(config, context);
}

}  // namespace saturate::cost::gpu
