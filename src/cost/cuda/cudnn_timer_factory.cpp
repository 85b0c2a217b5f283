#include "cost/cuda/cudnn_timer_factory.h"

#include <cuda_runtime_api.h>

#include <string>

#include "cost/cuda/cudnn_op_timer.h"
#include "support/error.h"

namespace saturate::cost {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls are not affected
    return 0;
  }
  return count;
}

std::unique_ptr<OpTimer> make_cudnn_timer(int device, const TimingOptions& options) {
  const int count = cuda_device_count();
  if (count == 0) {
    throw Error(
        "no CUDA device visible (cudaGetDeviceCount found none: check the driver and "
        "CUDA_VISIBLE_DEVICES)");
  }
  if (device < 0 || device >= count) {
    throw Error("CUDA device " + std::to_string(device) +
                " does not exist: " + std::to_string(count) + " device(s) visible");
  }
  return std::make_unique<CudnnOpTimer>(device, options);
}

}  // namespace saturate::cost
