#include "cost/cuda/gpu_context.h"

#include <algorithm>

#include "cost/cuda/cuda_status.h"

namespace saturate::cost::gpu {

GpuContext::GpuContext(int device, const TimingOptions& options)
    : device_(device), options_(options) {
  SATURATE_GPU_CHECK(cudaSetDevice(device));
  try {
    SATURATE_GPU_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    SATURATE_GPU_CHECK(cudnnCreate(&cudnn_));
    SATURATE_GPU_CHECK(cudnnSetStream(cudnn_, stream_));
    SATURATE_GPU_CHECK(cublasCreate(&cublas_));
    SATURATE_GPU_CHECK(cublasSetStream(cublas_, stream_));
    SATURATE_GPU_CHECK(cublasSetMathMode(
        cublas_, options.allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  } catch (...) {
    destroy_handles();  // a throwing constructor runs no destructor
    throw;
  }
}

GpuContext::~GpuContext() {
  release_buffers();
  destroy_handles();
}

void GpuContext::destroy_handles() noexcept {
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  cublas_ = nullptr;
  cudnn_ = nullptr;
  stream_ = nullptr;
}

float* GpuContext::buffer(size_t slot, size_t bytes) {
  if (slot >= buffers_.size()) buffers_.resize(slot + 1);
  buffers_[slot].reserve(std::max<size_t>(bytes, 1));
  return static_cast<float*>(buffers_[slot].data());
}

void* GpuContext::workspace(size_t* bytes) {
  if (workspace_bytes_ == 0) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    SATURATE_GPU_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    workspace_bytes_ = std::max<size_t>(std::min(options_.max_workspace_bytes, free_bytes / 2), 1);
    workspace_.reserve(workspace_bytes_);
  }
  *bytes = workspace_bytes_;
  return workspace_.data();
}

void GpuContext::release_buffers() {
  buffers_.clear();
  workspace_ = DeviceBuffer();
  workspace_bytes_ = 0;
}

}  // namespace saturate::cost::gpu
