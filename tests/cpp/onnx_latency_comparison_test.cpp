// The latency check's sign test: the optimized model is written only when it beat the original
// in enough paired rounds that equally fast models would rarely do so.
#include <gtest/gtest.h>

#include "onnx/latency_comparison.h"

namespace saturate::onnx {
namespace {

TEST(LatencyComparison, RoundsNeededAreTheFewestAtFivePercent) {
  // P(X >= 15 | n = 20) = 2.1 %, P(X >= 14) = 5.8 %.
  EXPECT_EQ((LatencyComparison{10, 9, 20, 0}).faster_rounds_needed(), 15);
  // 6 of 6: 1/64; 5 of 6: 7/64.
  EXPECT_EQ((LatencyComparison{10, 9, 6, 0}).faster_rounds_needed(), 6);
  // Below 5 rounds nothing reaches 5 %: every round must be faster.
  EXPECT_EQ((LatencyComparison{10, 9, 4, 0}).faster_rounds_needed(), 4);
}

TEST(LatencyComparison, KeepsTheOptimizedModelOnlyWhenFasterBeyondNoise) {
  EXPECT_TRUE((LatencyComparison{10, 9, 20, 15}).keeps_optimized());
  EXPECT_FALSE((LatencyComparison{10, 9, 20, 14}).keeps_optimized());   // a lower median alone
  EXPECT_FALSE((LatencyComparison{10, 10, 20, 20}).keeps_optimized());  // median not lower
  EXPECT_FALSE((LatencyComparison{10, 11, 20, 3}).keeps_optimized());
  EXPECT_FALSE((LatencyComparison{0, 0, 0, 0}).keeps_optimized());
}

}  // namespace
}  // namespace saturate::onnx
