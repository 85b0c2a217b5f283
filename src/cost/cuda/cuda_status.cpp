#include "cost/cuda/cuda_status.h"

#include <string>

#include "support/error.h"

namespace saturate::cost::gpu {

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  throw Error(std::string("CUDA call ") + call + " failed: " + cudaGetErrorString(status) + " (" +
              cudaGetErrorName(status) + ")");
}

void check(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw Error(std::string("cuDNN call ") + call + " failed: " + cudnnGetErrorString(status) +
              " (status " + std::to_string(static_cast<int>(status)) + ")");
}

void check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string("cuBLAS call ") + call + " failed: " + cublasGetStatusString(status) +
              " (" + cublasGetStatusName(status) + ")");
}

}  // namespace saturate::cost::gpu
