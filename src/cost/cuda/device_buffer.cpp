#include "cost/cuda/device_buffer.h"

#include <utility>

#include "cost/cuda/cuda_status.h"

namespace saturate::cost::gpu {

DeviceBuffer::~DeviceBuffer() {
  release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void DeviceBuffer::reserve(size_t bytes) {
  if (bytes <= size_) return;
  release();
  // Round up to 2 MiB so that slowly growing requests do not reallocate every time.
  constexpr size_t kGranule = size_t{2} << 20;
  const size_t rounded = (bytes + kGranule - 1) / kGranule * kGranule;
  SATURATE_GPU_CHECK(cudaMalloc(&data_, rounded));
  size_ = rounded;
  SATURATE_GPU_CHECK(cudaMemset(data_, 0x3c, rounded));
  // The fill runs on the legacy default stream, which the timer's non-blocking stream does not
  // wait for: finish it here so it never overlaps a timed kernel.
  SATURATE_GPU_CHECK(cudaDeviceSynchronize());
}

void DeviceBuffer::release() noexcept {
  if (data_ != nullptr) cudaFree(data_);  // nothing to do about a failure while freeing
  data_ = nullptr;
  size_ = 0;
}

}  // namespace saturate::cost::gpu
