// The single-call cuDNN operators: activations (cudnnActivationForward), binary element-wise
// operators (cudnnOpTensor), softmax (cudnnSoftmaxForward) and inference batch normalization
// (cudnnBatchNormalizationForwardInference).
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/cudnn_descriptors.h"
#include "cost/cuda/op_tensor_plan.h"
#include "cost/cuda/prepared_op.h"
#include "cost/cuda/tensor_layouts.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

// One cuDNN call with the descriptors it needs; `call_` refers to descriptors and buffers that
// this object owns or that the context keeps for the configuration's lifetime.
class PreparedCall : public PreparedOp {
 public:
  void run() override { call_(); }
  std::string method() const override { return method_; }

  cudnnTensorDescriptor_t tensor(const ir::Dims& dims) {
    tensors_.push_back(make_tensor_descriptor(dims));
    return tensors_.back().get();
  }

  ActivationDescriptor activation_;
  OpTensorDescriptor op_tensor_;
  std::function<void()> call_;
  std::string method_;

 private:
  std::vector<TensorDescriptor> tensors_;
};

std::unique_ptr<PreparedOp> prepare_activation(const OpConfig& config, GpuContext& context) {
  auto prepared = std::make_unique<PreparedCall>();
  const ir::Activation activation = config.op == ir::OpKind::Relu      ? ir::Activation::Relu
                                    : config.op == ir::OpKind::Sigmoid ? ir::Activation::Sigmoid
                                                                       : ir::Activation::Tanh;
  prepared->activation_ = make_activation_descriptor(*activation_mode(activation));
  const ir::Dims& dims = config.inputs[0].dims;
  cudnnTensorDescriptor_t desc = prepared->tensor(nchw_dims(dims));
  float* x = context.buffer(0, float_bytes(dims));
  float* y = context.buffer(kOutputSlot, float_bytes(dims));
  cudnnActivationDescriptor_t activation_desc = prepared->activation_.get();
  cudnnHandle_t handle = context.cudnn();
  prepared->call_ = [=] {
    const float one = 1;
    const float zero = 0;
    SATURATE_GPU_CHECK(
        cudnnActivationForward(handle, activation_desc, &one, desc, x, &zero, desc, y));
  };
  prepared->method_ = "cudnnActivationForward";
  return prepared;
}

std::unique_ptr<PreparedOp> prepare_binary(const OpConfig& config, GpuContext& context) {
  auto plan = plan_op_tensor(config.inputs[0].dims, config.inputs[1].dims, config.outputs[0].dims);
  if (!plan) throw Error("cudnnOpTensor cannot express " + describe(config));
  auto prepared = std::make_unique<PreparedCall>();
  const bool multiply = config.op == ir::OpKind::EwMul || config.op == ir::OpKind::Mul;
  cudnnOpTensorDescriptor_t raw = nullptr;
  SATURATE_GPU_CHECK(cudnnCreateOpTensorDescriptor(&raw));
  prepared->op_tensor_ = OpTensorDescriptor(raw);
  SATURATE_GPU_CHECK(
      cudnnSetOpTensorDescriptor(raw, multiply ? CUDNN_OP_TENSOR_MUL : CUDNN_OP_TENSOR_ADD,
                                 CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));
  cudnnTensorDescriptor_t full = prepared->tensor(plan->full);
  cudnnTensorDescriptor_t broadcast = prepared->tensor(plan->broadcast);
  const size_t full_operand = plan->swap_operands ? 1 : 0;
  float* a = context.buffer(full_operand, float_bytes(plan->full));
  float* b = context.buffer(1 - full_operand, float_bytes(plan->broadcast));
  float* c = context.buffer(kOutputSlot, float_bytes(plan->full));
  // sub: a - b, i.e. A + (-1) B, or (-1) A + B when the operands trade places.
  const bool subtract = config.op == ir::OpKind::Sub;
  const float alpha_a = subtract && plan->swap_operands ? -1.0f : 1.0f;
  const float alpha_b = subtract && !plan->swap_operands ? -1.0f : 1.0f;
  cudnnHandle_t handle = context.cudnn();
  prepared->call_ = [=] {
    const float zero = 0;
    SATURATE_GPU_CHECK(
        cudnnOpTensor(handle, raw, &alpha_a, full, a, &alpha_b, broadcast, b, &zero, full, c));
  };
  prepared->method_ =
      "cudnnOpTensor " + ir::to_string(plan->full) + " with " + ir::to_string(plan->broadcast);
  return prepared;
}

std::unique_ptr<PreparedOp> prepare_softmax(const OpConfig& config, GpuContext& context) {
  auto prepared = std::make_unique<PreparedCall>();
  const ir::Dims& dims = config.inputs[0].dims;
  cudnnTensorDescriptor_t desc = prepared->tensor(softmax_dims(dims, config.attrs.get_int("axis")));
  float* x = context.buffer(0, float_bytes(dims));
  float* y = context.buffer(kOutputSlot, float_bytes(dims));
  cudnnHandle_t handle = context.cudnn();
  prepared->call_ = [=] {
    const float one = 1;
    const float zero = 0;
    SATURATE_GPU_CHECK(cudnnSoftmaxForward(
        handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, desc, x, &zero, desc, y));
  };
  prepared->method_ = "cudnnSoftmaxForward";
  return prepared;
}

std::unique_ptr<PreparedOp> prepare_batchnorm(const OpConfig& config, GpuContext& context) {
  auto prepared = std::make_unique<PreparedCall>();
  const ir::Dims dims = batchnorm_dims(config.inputs[0].dims);
  cudnnTensorDescriptor_t desc = prepared->tensor(dims);
  cudnnTensorDescriptor_t parameters = prepared->tensor({1, dims[1], 1, 1});
  float* x = context.buffer(0, float_bytes(dims));
  float* scale = context.buffer(1, float_bytes({dims[1]}));
  float* bias = context.buffer(2, float_bytes({dims[1]}));
  float* mean = context.buffer(3, float_bytes({dims[1]}));
  float* variance = context.buffer(4, float_bytes({dims[1]}));
  float* y = context.buffer(kOutputSlot, float_bytes(dims));
  const double epsilon = std::max(config.attrs.get_float("epsilon"), CUDNN_BN_MIN_EPSILON);
  cudnnHandle_t handle = context.cudnn();
  prepared->call_ = [=] {
    const float one = 1;
    const float zero = 0;
    SATURATE_GPU_CHECK(cudnnBatchNormalizationForwardInference(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, desc, x, desc, y, parameters, scale, bias,
        mean, variance, epsilon));
  };
  prepared->method_ = "cudnnBatchNormalizationForwardInference";
  return prepared;
}

}  // namespace

std::unique_ptr<PreparedOp> prepare_pointwise(const OpConfig& config, GpuContext& context) {
  switch (config.op) {
    case ir::OpKind::Relu:
    case ir::OpKind::Sigmoid:
    case ir::OpKind::Tanh:
      return prepare_activation(config, context);
    case ir::OpKind::EwAdd:
    case ir::OpKind::EwMul:
    case ir::OpKind::Add:
    case ir::OpKind::Mul:
    case ir::OpKind::Sub:
      return prepare_binary(config, context);
    case ir::OpKind::Softmax:
      return prepare_softmax(config, context);
    case ir::OpKind::BatchNorm:
      return prepare_batchnorm(config, context);
    default:
      throw Error(std::string("no cuDNN call for ") + std::string(ir::to_string(config.op)));
  }
}

}  // namespace saturate::cost::gpu
