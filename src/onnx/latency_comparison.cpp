#include "onnx/latency_comparison.h"

#include <cmath>

namespace saturate::onnx {
namespace {

constexpr double kSignificance = 0.05;

// P(X >= k) for X ~ Binomial(n, 1/2).
double upper_tail(int n, int k) {
  double tail = 0;
  for (int i = k; i <= n; ++i) {
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                     n * std::log(2.0));
  }
  return tail;
}

}  // namespace

int LatencyComparison::faster_rounds_needed() const {
  for (int k = 0; k <= runs; ++k) {
    if (upper_tail(runs, k) <= kSignificance) return k;
  }
  return runs;
}

bool LatencyComparison::keeps_optimized() const {
  return runs > 0 && optimized_ms < original_ms &&
         optimized_faster_rounds >= faster_rounds_needed();
}

}  // namespace saturate::onnx
