#pragma once

#include <string>
#include <vector>

#include "cost/op_timer.h"

namespace saturate::cost {

struct OnednnTimerOptions {
  int threads = 0;  // OpenMP threads; 0: the OpenMP default (OMP_NUM_THREADS or all cores)
  int warmup = 2;   // untimed runs before the samples
  int repeats = 7;  // samples; the median is reported
  // Each sample runs the operator often enough to last at least this long, so that operators
  // of a few microseconds are not lost in clock resolution.
  double min_sample_ms = 0.5;
  int max_runs_per_sample = 1000;
  uint64_t seed = 0;  // of the random inputs and weights
};

// Times operator configurations on the oneDNN executor: each configuration becomes a one-node
// graph (a convolution's kernel, a normalization's parameters are weights, prepared once, as
// in a real graph; other operands are inputs) run on the same executor `saturate bench` uses.
// Supports what the executor runs natively (oneDNN primitives and copies); operators it runs
// on reference kernels (pow, erf, attention, enlarge, merge) are left to the fallback model.
class OnednnOpTimer : public OpTimer {
 public:
  explicit OnednnOpTimer(OnednnTimerOptions options = {});
  std::string backend() const override { return "onednn"; }
  // "cpu=<model name>;threads=<n>;onednn=<version>;denormals=flushed".
  std::string fingerprint() const override;
  int cpu_threads() const override;
  bool supports(const OpConfig& config) const override;
  std::vector<double> time_ms(const std::vector<OwnedOpConfig>& configs) override;
  int repeats() const override { return options_.repeats; }

 private:
  OnednnTimerOptions options_;
};

// The CPU's model name from /proc/cpuinfo ("unknown CPU" where there is none).
std::string cpu_model_name();

}  // namespace saturate::cost
