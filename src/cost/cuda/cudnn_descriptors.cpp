#include "cost/cuda/cudnn_descriptors.h"

#include <vector>

#include "cost/cuda/cuda_status.h"
#include "support/error.h"

namespace saturate::cost::gpu {

TensorDescriptor make_tensor_descriptor(const ir::Dims& dims) {
  if (dims.size() < 4 || dims.size() > 8) {
    throw Error("a cuDNN tensor needs 4 to 8 axes, got " + ir::to_string(dims));
  }
  std::vector<int> sizes(dims.begin(), dims.end());
  std::vector<int> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * sizes[i];
  cudnnTensorDescriptor_t raw = nullptr;
  SATURATE_GPU_CHECK(cudnnCreateTensorDescriptor(&raw));
  TensorDescriptor descriptor(raw);
  SATURATE_GPU_CHECK(cudnnSetTensorNdDescriptor(
      raw, CUDNN_DATA_FLOAT, static_cast<int>(sizes.size()), sizes.data(), strides.data()));
  return descriptor;
}

FilterDescriptor make_filter_descriptor(const ir::Dims& oihw) {
  if (oihw.size() != 4) throw Error("a cuDNN filter needs OIHW dims, got " + ir::to_string(oihw));
  cudnnFilterDescriptor_t raw = nullptr;
  SATURATE_GPU_CHECK(cudnnCreateFilterDescriptor(&raw));
  FilterDescriptor descriptor(raw);
  SATURATE_GPU_CHECK(cudnnSetFilter4dDescriptor(
      raw, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, static_cast<int>(oihw[0]),
      static_cast<int>(oihw[1]), static_cast<int>(oihw[2]), static_cast<int>(oihw[3])));
  return descriptor;
}

ActivationDescriptor make_activation_descriptor(cudnnActivationMode_t mode) {
  cudnnActivationDescriptor_t raw = nullptr;
  SATURATE_GPU_CHECK(cudnnCreateActivationDescriptor(&raw));
  ActivationDescriptor descriptor(raw);
  SATURATE_GPU_CHECK(cudnnSetActivationDescriptor(raw, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return descriptor;
}

}  // namespace saturate::cost::gpu
