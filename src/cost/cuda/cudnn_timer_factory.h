#pragma once

#include <memory>

#include "cost/cuda/timing_options.h"
#include "cost/op_timer.h"

namespace saturate::cost {

// How many CUDA devices this process sees: 0 when there is none, no driver, or the runtime
// fails to initialise (never throws). Tests skip the timing checks on 0.
int cuda_device_count();

// The cuDNN/cuBLAS timer (cudnn_op_timer.h) on `device`. Throws saturate::Error
// "no CUDA device visible" when there is none, and when `device` is out of range.
std::unique_ptr<OpTimer> make_cudnn_timer(int device = 0, const TimingOptions& options = {});

}  // namespace saturate::cost
