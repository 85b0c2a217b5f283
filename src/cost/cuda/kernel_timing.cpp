#include "cost/cuda/kernel_timing.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "cost/cuda/cuda_status.h"
#include "support/error.h"

namespace saturate::cost::gpu {
namespace {

struct EventDeleter {
  void operator()(cudaEvent_t event) const { cudaEventDestroy(event); }
};
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDeleter>;

Event make_event() {
  cudaEvent_t raw = nullptr;
  SATURATE_GPU_CHECK(cudaEventCreate(&raw));
  return Event(raw);
}

// Milliseconds per run over `runs` back-to-back runs.
double time_runs(const std::function<void()>& run, int runs, cudaStream_t stream, cudaEvent_t start,
                 cudaEvent_t stop) {
  SATURATE_GPU_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < runs; ++i) run();
  SATURATE_GPU_CHECK(cudaEventRecord(stop, stream));
  SATURATE_GPU_CHECK(cudaEventSynchronize(stop));
  float elapsed = 0;
  SATURATE_GPU_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
  return static_cast<double>(elapsed) / runs;
}

}  // namespace

KernelTiming time_kernel(const std::function<void()>& run, GpuContext& context) {
  const TimingOptions& options = context.options();
  const cudaStream_t stream = context.stream();
  for (int i = 0; i < options.warmup_runs; ++i) run();
  SATURATE_GPU_CHECK(cudaStreamSynchronize(stream));

  Event start = make_event();
  Event stop = make_event();
  // One run estimates how many make a sample of about min_sample_ms.
  const double single = time_runs(run, 1, stream, start.get(), stop.get());
  KernelTiming timing;
  if (single < options.min_sample_ms) {
    const double wanted = std::ceil(options.min_sample_ms / std::max(single, 1e-4));
    timing.runs_per_sample = static_cast<int>(
        std::clamp(wanted, 1.0, static_cast<double>(std::max(options.max_runs_per_sample, 1))));
  }
  std::vector<double> samples;
  for (int i = 0; i < std::max(options.samples, 1); ++i) {
    const double ms = time_runs(run, timing.runs_per_sample, stream, start.get(), stop.get());
    if (!std::isfinite(ms) || ms <= 0) {
      throw Error("a timed sample was " + std::to_string(ms) + " ms, not a positive time");
    }
    samples.push_back(ms);
  }
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  timing.median_ms = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  timing.min_ms = samples.front();
  timing.max_ms = samples.back();
  return timing;
}

}  // namespace saturate::cost::gpu
