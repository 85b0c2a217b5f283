#include "cost/cuda/cudnn_op_timer.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>

#include "cost/cuda/cuda_status.h"
#include "cost/cuda/cudnn_op_support.h"
#include "cost/cuda/gpu_context.h"
#include "cost/cuda/kernel_timing.h"
#include "cost/cuda/prepared_op.h"
#include "support/error.h"

namespace saturate::cost {
namespace {

std::string describe_device(const gpu::GpuContext& context) {
  cudaDeviceProp properties{};
  SATURATE_GPU_CHECK(cudaGetDeviceProperties(&properties, context.device()));
  int driver = 0;
  int runtime = 0;
  SATURATE_GPU_CHECK(cudaDriverGetVersion(&driver));
  SATURATE_GPU_CHECK(cudaRuntimeGetVersion(&runtime));
  int cublas = 0;
  SATURATE_GPU_CHECK(cublasGetVersion(context.cublas(), &cublas));
  return std::string(properties.name) + " sm_" + std::to_string(properties.major) +
         std::to_string(properties.minor) + " driver " + std::to_string(driver) + " runtime " +
         std::to_string(runtime) + " cudnn " + std::to_string(cudnnGetVersion()) + " cublas " +
         std::to_string(cublas) + (context.options().allow_tf32 ? " tf32" : " fp32");
}

}  // namespace

CudnnOpTimer::CudnnOpTimer(int device, TimingOptions options)
    : context_(std::make_unique<gpu::GpuContext>(device, options)),
      fingerprint_(describe_device(*context_)) {}

CudnnOpTimer::~CudnnOpTimer() = default;

bool CudnnOpTimer::supports(const OpConfig& config) const {
  return !gpu::cudnn_unsupported_reason(config).has_value();
}

int CudnnOpTimer::repeats() const {
  return std::max(context_->options().samples, 1);
}

std::vector<double> CudnnOpTimer::time_ms(const std::vector<OwnedOpConfig>& configs) {
  std::vector<double> times;
  last_methods_.clear();
  SATURATE_GPU_CHECK(cudaSetDevice(context_->device()));
  for (const OwnedOpConfig& owned : configs) {
    const OpConfig config = owned.view();
    try {
      require_concrete_shapes(config, "the cudnn timer");
      std::unique_ptr<gpu::PreparedOp> prepared = gpu::prepare_op(config, *context_);
      times.push_back(gpu::time_kernel([&] { prepared->run(); }, *context_).median_ms);
      last_methods_.push_back(prepared->method());
    } catch (const Error& error) {
      context_->release_buffers();
      throw Error("cudnn timer: timing " + describe(config) + " failed: " + error.what());
    }
  }
  context_->release_buffers();
  return times;
}

}  // namespace saturate::cost
