// conv2d: cudnnConvolutionForward with the algorithm cudnnFind* measures fastest, as TASO does.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/cudnn_descriptors.h"
#include "cost/cuda/prepared_op.h"
#include "cost/cuda/window_geometry.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

ConvolutionDescriptor make_convolution_descriptor(const WindowGeometry& geometry, int64_t groups,
                                                  bool allow_tf32) {
  cudnnConvolutionDescriptor_t raw = nullptr;
  SATURATE_GPU_CHECK(cudnnCreateConvolutionDescriptor(&raw));
  ConvolutionDescriptor descriptor(raw);
  SATURATE_GPU_CHECK(cudnnSetConvolution2dDescriptor(
      raw, static_cast<int>(geometry.pad_h), static_cast<int>(geometry.pad_w),
      static_cast<int>(geometry.stride_h), static_cast<int>(geometry.stride_w), 1, 1,
      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  SATURATE_GPU_CHECK(cudnnSetConvolutionGroupCount(raw, static_cast<int>(groups)));
  // Strict FP32 is FMA math; the default lets cuDNN use TF32 tensor cores on Ampere and later.
  SATURATE_GPU_CHECK(
      cudnnSetConvolutionMathType(raw, allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  return descriptor;
}

// The first usable entry of a perf list sorted fastest first.
std::optional<cudnnConvolutionFwdAlgoPerf_t> first_usable(
    const std::vector<cudnnConvolutionFwdAlgoPerf_t>& perf, int count, size_t workspace_bytes) {
  for (int i = 0; i < count; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= workspace_bytes) return perf[i];
  }
  return std::nullopt;
}

class PreparedConv : public PreparedOp {
 public:
  PreparedConv(const OpConfig& config, GpuContext& context) : context_(context) {
    const WindowGeometry geometry = conv_geometry(config);
    const ir::Dims& weight = config.inputs[1].dims;
    x_desc_ = make_tensor_descriptor(geometry.input);
    w_desc_ = make_filter_descriptor(weight);
    y_desc_ = make_tensor_descriptor(geometry.output);
    bias_desc_ = make_tensor_descriptor({1, weight[0], 1, 1});
    conv_desc_ =
        make_convolution_descriptor(geometry, conv_groups(config), context.options().allow_tf32);
    check_output_dims(geometry.output);
    x_ = context.buffer(0, float_bytes(geometry.input));
    w_ = context.buffer(1, float_bytes(weight));
    bias_ = context.buffer(2, float_bytes({weight[0]}));
    y_ = context.buffer(kOutputSlot, float_bytes(geometry.output));
    choose_algorithm();
    if (auto mode = activation_mode(config.attrs.get_activation())) {
      activation_ = make_activation_descriptor(*mode);
      fused_ = *mode == CUDNN_ACTIVATION_RELU && fused_relu_works();
    }
  }

  void run() override {
    const float one = 1;
    const float zero = 0;
    cudnnHandle_t handle = context_.cudnn();
    if (fused_) {
      check(run_fused(), "cudnnConvolutionBiasActivationForward");
      return;
    }
    SATURATE_GPU_CHECK(cudnnConvolutionForward(handle, &one, x_desc_.get(), x_, w_desc_.get(), w_,
                                               conv_desc_.get(), algorithm_, workspace_,
                                               workspace_bytes_, &zero, y_desc_.get(), y_));
    if (activation_) {
      SATURATE_GPU_CHECK(cudnnActivationForward(handle, activation_.get(), &one, y_desc_.get(), y_,
                                                &zero, y_desc_.get(), y_));
    }
  }

  std::string method() const override {
    std::string text =
        std::string(fused_ ? "cudnnConvolutionBiasActivationForward" : "cudnnConvolutionForward") +
        " algo " + std::to_string(static_cast<int>(algorithm_));
    if (activation_ && !fused_) text += " + cudnnActivationForward";
    return text;
  }

 private:
  void check_output_dims(const ir::Dims& expected) const {
    int n = 0, c = 0, h = 0, w = 0;
    SATURATE_GPU_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc_.get(), x_desc_.get(),
                                                             w_desc_.get(), &n, &c, &h, &w));
    if (ir::Dims{n, c, h, w} != expected) {
      throw Error("cuDNN computes conv output " + ir::to_string(ir::Dims{n, c, h, w}) +
                  ", the IR " + ir::to_string(expected));
    }
  }

  void choose_algorithm() {
    size_t available = 0;
    void* workspace = context_.workspace(&available);
    cudnnHandle_t handle = context_.cudnn();
    int max_count = 0;
    SATURATE_GPU_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_count));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
    int count = 0;
    // Runs every applicable algorithm on these buffers and sorts them by time.
    SATURATE_GPU_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        handle, x_desc_.get(), x_, w_desc_.get(), w_, conv_desc_.get(), y_desc_.get(), y_,
        static_cast<int>(perf.size()), &count, perf.data(), workspace, available));
    auto chosen = first_usable(perf, count, available);
    if (!chosen) {
      // Find timed nothing usable: take the heuristics' first choice that fits.
      SATURATE_GPU_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
          handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
          static_cast<int>(perf.size()), &count, perf.data()));
      chosen = first_usable(perf, count, available);
    }
    if (!chosen) throw Error("cuDNN has no forward algorithm for this convolution");
    algorithm_ = chosen->algo;
    workspace_ = workspace;
    workspace_bytes_ = chosen->memory;
    if (context_.options().allow_tf32) {
      SATURATE_GPU_CHECK(cudnnSetConvolutionMathType(conv_desc_.get(), chosen->mathType));
    }
  }

  cudnnStatus_t run_fused() {
    const float one = 1;
    const float zero = 0;
    // y = relu(conv(x) + 0 * z + bias) with z = y: the fused kernel needs a z operand.
    return cudnnConvolutionBiasActivationForward(
        context_.cudnn(), &one, x_desc_.get(), x_, w_desc_.get(), w_, conv_desc_.get(), algorithm_,
        workspace_, workspace_bytes_, &zero, y_desc_.get(), y_, bias_desc_.get(), bias_,
        activation_.get(), y_desc_.get(), y_);
  }

  // Some algorithms have no fused form; the conv is then timed with a separate activation.
  bool fused_relu_works() {
    const cudnnStatus_t status = run_fused();
    if (status == CUDNN_STATUS_NOT_SUPPORTED || status == CUDNN_STATUS_BAD_PARAM) return false;
    check(status, "cudnnConvolutionBiasActivationForward");
    return true;
  }

  GpuContext& context_;
  TensorDescriptor x_desc_;
  FilterDescriptor w_desc_;
  TensorDescriptor y_desc_;
  TensorDescriptor bias_desc_;
  ConvolutionDescriptor conv_desc_;
  ActivationDescriptor activation_;  // null without a fused activation
  bool fused_ = false;
  float* x_ = nullptr;
  float* w_ = nullptr;
  float* bias_ = nullptr;
  float* y_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  cudnnConvolutionFwdAlgo_t algorithm_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
};

}  // namespace

std::unique_ptr<PreparedOp> prepare_conv(const OpConfig& config, GpuContext& context) {
  return std::make_unique<PreparedConv>(config, context);
}

}  // namespace saturate::cost::gpu
