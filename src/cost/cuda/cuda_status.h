#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace saturate::cost::gpu {

// Turn a failed CUDA runtime, cuDNN or cuBLAS call into saturate::Error naming the call and the
// library's own message. `call` is the call's source text (see SATURATE_GPU_CHECK).
void check(cudaError_t status, const char* call);
void check(cudnnStatus_t status, const char* call);
void check(cublasStatus_t status, const char* call);

}  // namespace saturate::cost::gpu

// Checks one CUDA/cuDNN/cuBLAS call: SATURATE_GPU_CHECK(cudaMalloc(&p, bytes)).
#define SATURATE_GPU_CHECK(call) ::saturate::cost::gpu::check((call), #call)
