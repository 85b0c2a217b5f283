#pragma once

#include <cudnn.h>

#include <memory>
#include <type_traits>

#include "ir/tensor_type.h"

namespace saturate::cost::gpu {

// Owning handles for cuDNN's descriptor objects: each is destroyed with its own cudnnDestroy*.
template <auto destroy>
struct CudnnDeleter {
  template <typename Pointer>
  void operator()(Pointer pointer) const {
    destroy(pointer);
  }
};
template <typename Descriptor, auto destroy>
using CudnnObject = std::unique_ptr<std::remove_pointer_t<Descriptor>, CudnnDeleter<destroy>>;

using TensorDescriptor = CudnnObject<cudnnTensorDescriptor_t, &cudnnDestroyTensorDescriptor>;
using FilterDescriptor = CudnnObject<cudnnFilterDescriptor_t, &cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    CudnnObject<cudnnConvolutionDescriptor_t, &cudnnDestroyConvolutionDescriptor>;
using ActivationDescriptor =
    CudnnObject<cudnnActivationDescriptor_t, &cudnnDestroyActivationDescriptor>;
using PoolingDescriptor = CudnnObject<cudnnPoolingDescriptor_t, &cudnnDestroyPoolingDescriptor>;
using OpTensorDescriptor = CudnnObject<cudnnOpTensorDescriptor_t, &cudnnDestroyOpTensorDescriptor>;

// A packed row-major float tensor; dims has 4 or 5 entries (see tensor_layouts.h).
TensorDescriptor make_tensor_descriptor(const ir::Dims& dims);
// A float OIHW filter.
FilterDescriptor make_filter_descriptor(const ir::Dims& oihw);
// cudnnActivationForward's descriptor for sigmoid, relu or tanh.
ActivationDescriptor make_activation_descriptor(cudnnActivationMode_t mode);

}  // namespace saturate::cost::gpu
