#pragma once

#include <functional>

#include "cost/cuda/gpu_context.h"

namespace saturate::cost::gpu {

// Statistics of one timed configuration, in milliseconds per run.
struct KernelTiming {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int runs_per_sample = 1;
};

// Times `run`, which enqueues one run of a kernel (or a short fixed sequence of them) on
// context.stream(): warm-up runs, then context.options().samples samples between CUDA events,
// each sample repeating the run until it lasts about min_sample_ms. Throws saturate::Error on any
// CUDA failure, and when a sample is not a positive finite time.
KernelTiming time_kernel(const std::function<void()>& run, GpuContext& context);

}  // namespace saturate::cost::gpu
