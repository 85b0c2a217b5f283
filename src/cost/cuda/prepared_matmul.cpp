// matmul: one cuBLAS strided-batched SGEMM (row-major operands through the column-major API),
// then cudnnActivationForward for a fused activation.
#include <string>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/cudnn_descriptors.h"
#include "cost/cuda/gemm_plan.h"
#include "cost/cuda/prepared_op.h"
#include "cost/cuda/tensor_layouts.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

class PreparedMatmul : public PreparedOp {
 public:
  PreparedMatmul(const OpConfig& config, GpuContext& context) : context_(context) {
    auto plan = plan_gemm(config.inputs[0].dims, config.inputs[1].dims);
    if (!plan) throw Error("matmul " + describe(config) + " has no strided-batched GEMM form");
    plan_ = *plan;
    const ir::Dims& out = config.outputs[0].dims;
    a_ = context.buffer(0, float_bytes(config.inputs[0].dims));
    b_ = context.buffer(1, float_bytes(config.inputs[1].dims));
    c_ = context.buffer(kOutputSlot, float_bytes(out));
    if (auto mode = activation_mode(config.attrs.get_activation())) {
      activation_ = make_activation_descriptor(*mode);
      c_desc_ = make_tensor_descriptor(nchw_dims(out));
    }
  }

  void run() override {
    const float one = 1;
    const float zero = 0;
    const int m = static_cast<int>(plan_.m);
    const int n = static_cast<int>(plan_.n);
    const int k = static_cast<int>(plan_.k);
    // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B first, with n rows.
    if (plan_.batch == 1) {
      SATURATE_GPU_CHECK(cublasSgemm(context_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b_,
                                     n, a_, k, &zero, c_, n));
    } else {
      SATURATE_GPU_CHECK(cublasSgemmStridedBatched(
          context_.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b_, n, plan_.stride_b, a_, k,
          plan_.stride_a, &zero, c_, n, plan_.stride_c, static_cast<int>(plan_.batch)));
    }
    if (activation_) {
      SATURATE_GPU_CHECK(cudnnActivationForward(context_.cudnn(), activation_.get(), &one,
                                                c_desc_.get(), c_, &zero, c_desc_.get(), c_));
    }
  }

  std::string method() const override {
    std::string text = plan_.batch == 1 ? "cublasSgemm" : "cublasSgemmStridedBatched";
    text += " m=" + std::to_string(plan_.m) + " n=" + std::to_string(plan_.n) +
            " k=" + std::to_string(plan_.k) + " batch=" + std::to_string(plan_.batch);
    if (activation_) text += " + cudnnActivationForward";
    return text;
  }

 private:
  GpuContext& context_;
  GemmPlan plan_;
  float* a_ = nullptr;
  float* b_ = nullptr;
  float* c_ = nullptr;
  ActivationDescriptor activation_;  // null without a fused activation
  TensorDescriptor c_desc_;
};

}  // namespace

std::unique_ptr<PreparedOp> prepare_matmul(const OpConfig& config, GpuContext& context) {
  return std::make_unique<PreparedMatmul>(config, context);
}

}  // namespace saturate::cost::gpu
