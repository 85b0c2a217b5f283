#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <vector>

#include "cost/cuda/device_buffer.h"
#include "cost/cuda/timing_options.h"

namespace saturate::cost::gpu {

// Everything timing needs on one device: a stream, cuDNN and cuBLAS handles bound to it, and
// scratch buffers reused across configurations.
class GpuContext {
 public:
  // Selects the device and creates the stream and handles. Throws saturate::Error.
  GpuContext(int device, const TimingOptions& options);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }
  const TimingOptions& options() const { return options_; }

  // Scratch device memory `slot`, at least `bytes` long. A pointer stays valid until the next
  // call for the same slot or release_buffers(); one configuration uses distinct slots.
  float* buffer(size_t slot, size_t bytes);
  // The conv-algorithm workspace: options().max_workspace_bytes, capped at half the free device
  // memory. Sets *bytes to its size.
  void* workspace(size_t* bytes);
  // Frees every scratch buffer (between batches, so idle timers hold no device memory).
  void release_buffers();

 private:
  void destroy_handles() noexcept;

  int device_;
  TimingOptions options_;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::vector<DeviceBuffer> buffers_;
  DeviceBuffer workspace_;
  size_t workspace_bytes_ = 0;  // 0 until first asked for
};

}  // namespace saturate::cost::gpu
