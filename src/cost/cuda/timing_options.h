#pragma once

#include <cstddef>

namespace saturate::cost {

// How CudnnOpTimer measures one configuration. Defaults are written where each option is
// declared; none is a tight bound, since the timer ranks configurations rather than benchmarks
// them to the microsecond.
struct TimingOptions {
  // Untimed runs after algorithm selection (which itself runs every candidate conv algorithm).
  int warmup_runs = 3;
  // Timed samples; the median is reported.
  int samples = 9;
  // A sample repeats the kernel until it lasts about this long, so that microsecond kernels are
  // not measured at the resolution of CUDA events (about 0.5 us).
  double min_sample_ms = 0.05;
  int max_runs_per_sample = 100;
  // Tensor-core TF32 for float convolutions and GEMMs. Off by default: strict FP32, as TASO's
  // cuDNN measurements were, so that convs and matmuls are priced on the same arithmetic.
  bool allow_tf32 = false;
  // The most scratch memory a conv algorithm may use (cudnnFind* only considers algorithms that
  // fit); also capped at half of the free device memory.
  size_t max_workspace_bytes = size_t{1} << 30;
};

}  // namespace saturate::cost
