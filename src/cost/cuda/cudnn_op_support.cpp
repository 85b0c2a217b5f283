#include "cost/cuda/cudnn_op_support.h"

#include "cost/cuda/gemm_plan.h"
#include "cost/cuda/op_tensor_plan.h"
#include "cost/cuda/tensor_layouts.h"
#include "cost/cuda/window_geometry.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

using ir::OpKind;
using Reason = std::optional<std::string>;

Reason window_reason(const WindowGeometry& geometry, const OpConfig& config) {
  if (geometry.output != config.outputs.at(0).dims) {
    return "cuDNN's output " + ir::to_string(geometry.output) + " differs from the IR's " +
           ir::to_string(config.outputs.at(0).dims);
  }
  if (!fits_cudnn(geometry.input))
    return std::string("the (padded) input exceeds cuDNN's int sizes");
  return std::nullopt;
}

Reason conv_reason(const OpConfig& config) {
  if (config.inputs.size() != 2 || config.inputs[0].rank() != 4 || config.inputs[1].rank() != 4) {
    return std::string("conv2d needs an NCHW input and an OIHW weight");
  }
  const int64_t group_channels = config.inputs[1].dims[1];
  const int64_t channels = config.inputs[0].dims[1];
  if (group_channels <= 0 || channels % group_channels != 0 ||
      config.inputs[1].dims[0] % (channels / group_channels) != 0) {
    return std::string("conv2d channels do not split into groups");
  }
  return window_reason(conv_geometry(config), config);
}

Reason pool_reason(const OpConfig& config) {
  if (config.inputs.size() != 1 || config.inputs[0].rank() != 4) {
    return std::string("pooling needs an NCHW input");
  }
  return window_reason(pool_geometry(config), config);
}

Reason matmul_reason(const OpConfig& config) {
  if (config.inputs.size() != 2) return std::string("matmul takes two operands");
  if (!plan_gemm(config.inputs[0].dims, config.inputs[1].dims)) {
    return "batch axes of " + ir::to_string(config.inputs[0]) + " x " +
           ir::to_string(config.inputs[1]) +
           " broadcast in a way one strided-batched GEMM cannot express";
  }
  return std::nullopt;
}

Reason binary_reason(const OpConfig& config) {
  if (config.inputs.size() != 2) return std::string("a binary operator takes two operands");
  if (!plan_op_tensor(config.inputs[0].dims, config.inputs[1].dims, config.outputs.at(0).dims)) {
    return "cudnnOpTensor cannot broadcast " + ir::to_string(config.inputs[0]) + " with " +
           ir::to_string(config.inputs[1]) +
           " (one operand must have the output's shape, at most 5 merged axes)";
  }
  return std::nullopt;
}

Reason layout_reason(const OpConfig& config) {
  if (config.op == OpKind::Softmax) {
    softmax_dims(config.inputs.at(0).dims, config.attrs.get_int("axis"));  // checks the axis
  }
  if (config.op == OpKind::BatchNorm) {
    if (config.inputs.size() != 5) return std::string("batchnorm takes 5 inputs");
    if (!fits_cudnn(batchnorm_dims(config.inputs[0].dims))) {
      return std::string("the input exceeds cuDNN's int sizes");
    }
  }
  return std::nullopt;
}

Reason operator_reason(const OpConfig& config) {
  switch (config.op) {
    case OpKind::Conv2d:
      return conv_reason(config);
    case OpKind::PoolMax:
    case OpKind::PoolAvg:
      return pool_reason(config);
    case OpKind::MatMul:
      return matmul_reason(config);
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
      return binary_reason(config);
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Softmax:
    case OpKind::BatchNorm:
      return layout_reason(config);
    case OpKind::Split:
      // Its outputs are views of the input, as in TASO: the fallback prices it (at zero).
      return std::string("split produces views of its input; nothing to time");
    case OpKind::Concat:
    case OpKind::Transpose:
      return std::nullopt;  // device memcpy of the bytes moved: any shape
    default:
      return std::string(ir::to_string(config.op)) +
             " has no cuDNN/cuBLAS kernel in this timer (the fallback model prices it)";
  }
}

}  // namespace

std::optional<std::string> cudnn_unsupported_reason(const OpConfig& config) {
  // Symbolic dims are handles, not sizes: nothing below may read them.
  if (has_symbolic_shape(config)) {
    return std::string("the configuration has symbolic dimensions (bind the symbols first)");
  }
  for (const auto* types : {&config.inputs, &config.outputs}) {
    for (const ir::TensorType& type : *types) {
      if (type.dtype != ir::DType::F32) return std::string("only f32 tensors are timed");
      if (config.op != OpKind::Concat && config.op != OpKind::Split &&
          config.op != OpKind::Transpose && !fits_cudnn(nchw_dims(type.dims))) {
        return "tensor " + ir::to_string(type) + " exceeds cuDNN's int sizes";
      }
    }
  }
  if (config.outputs.empty()) return std::string("the configuration has no output");
  try {
    return operator_reason(config);
  } catch (const Error& error) {
    return std::string("cannot translate the configuration: ") + error.what();
  }
}

std::string_view cudnn_timing_method(ir::OpKind op) {
  switch (op) {
    case OpKind::Conv2d:
      return "cudnnConvolutionForward with the fastest algorithm cudnnFindConvolutionForward"
             "AlgorithmEx finds; fused relu via cudnnConvolutionBiasActivationForward, fused "
             "sigmoid/tanh as a following cudnnActivationForward";
    case OpKind::MatMul:
      return "cublasSgemmStridedBatched (+ cudnnActivationForward for a fused activation)";
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
      return "cudnnActivationForward";
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
      return "cudnnOpTensor";
    case OpKind::PoolMax:
    case OpKind::PoolAvg:
      return "cudnnPoolingForward (+ cudnnActivationForward for a fused activation)";
    case OpKind::Softmax:
      return "cudnnSoftmaxForward (accurate, channel mode)";
    case OpKind::BatchNorm:
      return "cudnnBatchNormalizationForwardInference (spatial)";
    case OpKind::Concat:
    case OpKind::Transpose:
      return "cudaMemcpyAsync device to device of the bytes moved (one copy per part)";
    default:
      return "not timed";
  }
}

}  // namespace saturate::cost::gpu
