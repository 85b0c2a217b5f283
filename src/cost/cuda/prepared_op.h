#pragma once

#include <cudnn.h>

#include <memory>
#include <optional>
#include <string>

#include "cost/cost_model.h"
#include "cost/cuda/gpu_context.h"
#include "ir/attribute.h"

namespace saturate::cost::gpu {

// One configuration ready to run on the device: descriptors built, buffers sized, the conv
// algorithm chosen. Only valid while its context's buffers are not resized for another
// configuration, so configurations are prepared and timed one at a time.
class PreparedOp {
 public:
  virtual ~PreparedOp() = default;
  // Enqueues one run on the context's stream; throws saturate::Error when a call fails.
  virtual void run() = 0;
  // What was actually run, for reports: "cudnnConvolutionForward algo 1" and the like.
  virtual std::string method() const = 0;
};

// Prepares a configuration cudnn_unsupported_reason accepts. Throws saturate::Error otherwise
// and when a CUDA/cuDNN/cuBLAS call fails.
std::unique_ptr<PreparedOp> prepare_op(const OpConfig& config, GpuContext& context);

// The per-family preparations prepare_op dispatches to.
std::unique_ptr<PreparedOp> prepare_conv(const OpConfig& config, GpuContext& context);
std::unique_ptr<PreparedOp> prepare_matmul(const OpConfig& config, GpuContext& context);
std::unique_ptr<PreparedOp> prepare_pool(const OpConfig& config, GpuContext& context);
std::unique_ptr<PreparedOp> prepare_pointwise(const OpConfig& config, GpuContext& context);
std::unique_ptr<PreparedOp> prepare_copy(const OpConfig& config, GpuContext& context);

// Buffer slots: inputs use slot i, outputs kOutputSlot + j.
inline constexpr size_t kOutputSlot = 1024;
// Bytes of one f32 tensor.
size_t float_bytes(const ir::Dims& dims);
// cuDNN's activation mode for a fused activation; nullopt for none.
std::optional<cudnnActivationMode_t> activation_mode(ir::Activation activation);

}  // namespace saturate::cost::gpu
