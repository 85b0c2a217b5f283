// The latency check writes the optimized model only on the sequential paired test's "faster"
// verdict (python/saturate/latency_verdict.py decides; tests/python/test_latency_verdict.py
// tests the statistics).
#include <gtest/gtest.h>

#include "onnx/latency_comparison.h"

namespace saturate::onnx {
namespace {

LatencyComparison comparison(double original_ms, double optimized_ms, const char* verdict) {
  LatencyComparison result;
  result.original_ms = original_ms;
  result.optimized_ms = optimized_ms;
  result.runs = 40;
  result.verdict = verdict;
  return result;
}

TEST(LatencyComparison, KeepsTheOptimizedModelOnlyWhenDecidedFaster) {
  EXPECT_TRUE(comparison(10, 9, "faster").keeps_optimized());
  EXPECT_FALSE(comparison(10, 9, "undecided").keeps_optimized());  // a lower median alone
  EXPECT_FALSE(comparison(10, 9.95, "equivalent").keeps_optimized());
  EXPECT_FALSE(comparison(10, 11, "slower").keeps_optimized());
  // The paired verdict decides, not the unpaired medians (each mixes rounds of different load).
  EXPECT_TRUE(comparison(10, 10.2, "faster").keeps_optimized());
  EXPECT_FALSE(LatencyComparison{}.keeps_optimized());  // nothing was timed
}

}  // namespace
}  // namespace saturate::onnx
