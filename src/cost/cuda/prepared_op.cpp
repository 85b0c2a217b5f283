#include "cost/cuda/prepared_op.h"

#include "cost/cuda/cudnn_op_support.h"
#include "support/error.h"

namespace saturate::cost::gpu {

size_t float_bytes(const ir::Dims& dims) {
  size_t count = 1;
  for (int64_t d : dims) count *= static_cast<size_t>(d);
  return count * sizeof(float);
}

std::optional<cudnnActivationMode_t> activation_mode(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::None:
      return std::nullopt;
    case ir::Activation::Sigmoid:
      return CUDNN_ACTIVATION_SIGMOID;
    case ir::Activation::Relu:
      return CUDNN_ACTIVATION_RELU;
    case ir::Activation::Tanh:
      return CUDNN_ACTIVATION_TANH;
    case ir::Activation::Clip:
    case ir::Activation::LeakyRelu:
    case ir::Activation::HardSigmoid:
      // Only fused_conv carries these, and the cudnn timer does not time it.
      throw Error("the cudnn timer has no fused " + std::string(ir::to_string(activation)));
  }
  throw Error("unknown activation code " + std::to_string(static_cast<int64_t>(activation)));
}

std::unique_ptr<PreparedOp> prepare_op(const OpConfig& config, GpuContext& context) {
  if (auto reason = cudnn_unsupported_reason(config)) {
    throw Error("the cudnn timer cannot time " + describe(config) + ": " + *reason);
  }
  switch (config.op) {
    case ir::OpKind::Conv2d:
      return prepare_conv(config, context);
    case ir::OpKind::MatMul:
      return prepare_matmul(config, context);
    case ir::OpKind::PoolMax:
    case ir::OpKind::PoolAvg:
      return prepare_pool(config, context);
    case ir::OpKind::Concat:
    case ir::OpKind::Split:
    case ir::OpKind::Transpose:
      return prepare_copy(config, context);
    default:
      return prepare_pointwise(config, context);
  }
}

}  // namespace saturate::cost::gpu
