#pragma once

#include <cstddef>

namespace saturate::cost::gpu {

// Device memory owned by one object (cudaMalloc/cudaFree), move-only. Timing buffers are reused
// from one configuration to the next: `reserve` only grows, so a batch of configurations
// allocates about as often as its largest tensor grows.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Makes the buffer at least `bytes` long; new memory is filled with a small positive float
  // (0x3c3c3c3c, about 0.0115) so kernels never run on NaNs or denormals. Throws saturate::Error
  // when the device is out of memory.
  void reserve(size_t bytes);
  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace saturate::cost::gpu
