#pragma once

#include <string>

namespace saturate::onnx {

// Medians of whole-model runs, original and optimized side by side (interleaved), and the
// verdict of the sequential paired test on them (python/saturate/latency_verdict.py): the
// speedup (original / optimized) estimated from the median paired log-ratio, its interval at
// `confidence`, and whether that interval decides.
struct LatencyComparison {
  double original_ms = 0;
  double optimized_ms = 0;
  int runs = 0;            // paired rounds run
  std::string verdict;     // faster, slower, equivalent or undecided
  double speedup = 1;      // original / optimized
  double speedup_low = 0;  // the interval; 0 and +inf where too few rounds bound it
  double speedup_high = 0;
  double confidence = 0;

  // The optimized model is written only when the test decided it is faster (the whole interval
  // above 1); slower, equivalent (within 1 %) and undecided keep the original. The two medians
  // are reported, not compared: each mixes rounds of different load, and on a busy machine they
  // disagreed with a clear paired verdict in 2 of 10 runs (bench/latency_stability.py).
  bool keeps_optimized() const;
};

}  // namespace saturate::onnx
