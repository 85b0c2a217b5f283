// conv2d and pooling against hand-computed windows: groups, SAME and VALID padding, strides,
// asymmetric SAME padding, borders and fused activations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_values;

namespace {

std::vector<double> iota(int64_t count, double start = 1) {
  std::vector<double> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(start + static_cast<double>(i));
  return values;
}

struct ConvCase {
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  Padding padding = Padding::Same;
  Activation activation = Activation::None;
};

Tensor conv(const Tensor& x, const Tensor& w, ConvCase c = {}) {
  GraphBuilder b("conv");
  b.output("y", b.conv2d(b.input("x", x.dims), b.weight(w.dims, "w"), c.stride_h, c.stride_w,
                         c.padding, c.activation));
  return Interpreter({Precision::F64}).run(b.graph(), {{"x", x}, {"w", w}}).at("y");
}

Tensor pool(bool max, const Tensor& x, int64_t kernel, int64_t stride, Padding padding,
            Activation activation = Activation::None) {
  GraphBuilder b("pool");
  ValueRef in = b.input("x", x.dims);
  b.output("y", max ? b.poolmax(in, kernel, kernel, stride, stride, padding, activation)
                    : b.poolavg(in, kernel, kernel, stride, stride, padding, activation));
  return Interpreter({Precision::F64}).run(b.graph(), {{"x", x}}).at("y");
}

// 1 2 3 / 4 5 6 / 7 8 9 as one NCHW plane.
Tensor grid3() {
  return Tensor({1, 1, 3, 3}, iota(9));
}

}  // namespace

TEST(Conv2d, ValidTwoByTwo) {
  Tensor w({1, 1, 2, 2}, std::vector<double>{1, 2, 3, 4});
  // Top-left window 1 2 / 4 5: 1*1 + 2*2 + 4*3 + 5*4 = 37; the others shift by 1 or 3.
  expect_values(conv(grid3(), w, {.padding = Padding::Valid}), {1, 1, 2, 2}, {37, 47, 67, 77});
}

TEST(Conv2d, SameThreeByThreeSumsNeighbours) {
  Tensor w({1, 1, 3, 3}, 1.0);
  expect_values(conv(grid3(), w), {1, 1, 3, 3}, {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

TEST(Conv2d, SameStrideTwoPadsAtTheEnd) {
  // H = W = 4, kernel 3, stride 2: output 2, total padding 1, all of it after the last row
  // and column. A kernel with a single 1 in its top-left corner reads x[2i][2j].
  Tensor x({1, 1, 4, 4}, iota(16));
  Tensor corner({1, 1, 3, 3}, std::vector<double>{1, 0, 0, 0, 0, 0, 0, 0, 0});
  expect_values(conv(x, corner, {.stride_h = 2, .stride_w = 2}), {1, 1, 2, 2}, {1, 3, 9, 11});
  // All-ones: 1+2+3+5+6+7+9+10+11 = 54, 3+4+7+8+11+12 = 45, 9+10+11+13+14+15 = 72,
  // 11+12+15+16 = 54.
  Tensor ones({1, 1, 3, 3}, 1.0);
  expect_values(conv(x, ones, {.stride_h = 2, .stride_w = 2}), {1, 1, 2, 2}, {54, 45, 72, 54});
}

TEST(Conv2d, SameOddTotalPaddingPutsTheExtraAtTheEnd) {
  // W = 3, kernel width 4, stride 1: total padding 3, one column before and two after.
  Tensor x({1, 1, 1, 3}, std::vector<double>{1, 2, 3});
  Tensor w({1, 1, 1, 4}, std::vector<double>{1, 10, 100, 1000});
  // Taps at columns -1..2, 0..3 and 1..4.
  expect_values(conv(x, w), {1, 1, 1, 3}, {10 * 1 + 100 * 2 + 1000 * 3, 1 + 20 + 300, 2 + 30});
}

TEST(Conv2d, DifferentStridesPerAxis) {
  Tensor x({1, 1, 3, 4}, iota(12));
  Tensor w({1, 1, 1, 1}, 1.0);
  // Rows 0 and 2, columns 0 and 3.
  expect_values(conv(x, w, {.stride_h = 2, .stride_w = 3, .padding = Padding::Valid}), {1, 1, 2, 2},
                {1, 4, 9, 12});
}

TEST(Conv2d, TwoGroupsSeeTheirOwnChannels) {
  // C = 4, weight (2, 2, 1, 1): 2 groups; output 0 reads channels 0-1, output 1 channels 2-3.
  Tensor x({2, 4, 1, 1}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w({2, 2, 1, 1}, std::vector<double>{1, 10, 100, 1000});
  expect_values(conv(x, w), {2, 2, 1, 1}, {1 + 20, 300 + 4000, 5 + 60, 700 + 8000});
}

TEST(Conv2d, TwoGroupsWithTwoOutputsEach) {
  Tensor x({1, 4, 1, 1}, std::vector<double>{1, 2, 3, 4});
  Tensor w({4, 2, 1, 1}, std::vector<double>{1, 1, 1, -1, 1, 1, 1, -1});
  expect_values(conv(x, w), {1, 4, 1, 1}, {3, -1, 7, -1});
}

TEST(Conv2d, MultiChannelSpatial) {
  // Two input channels, 2x2 planes, one 2x2 kernel per channel, VALID: a single dot product.
  Tensor x({1, 2, 2, 2}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w({1, 2, 2, 2}, std::vector<double>{1, 0, 0, 1, 0, 1, 1, 0});
  expect_values(conv(x, w, {.padding = Padding::Valid}), {1, 1, 1, 1}, {1 + 4 + 6 + 7});
}

TEST(Conv2d, FusedActivations) {
  Tensor x({1, 1, 2, 2}, std::vector<double>{1, -2, 3, -4});
  Tensor w({1, 1, 1, 1}, -1.0);
  expect_values(conv(x, w, {.activation = Activation::Relu}), {1, 1, 2, 2}, {0, 2, 0, 4});
  Tensor zero({1, 1, 1, 1}, 0.0);
  expect_values(conv(zero, Tensor({1, 1, 1, 1}, 1.0), {.activation = Activation::Sigmoid}),
                {1, 1, 1, 1}, {0.5});
  expect_values(
      conv(Tensor({1, 1, 1, 1}, 1.0), Tensor({1, 1, 1, 1}, 1.0), {.activation = Activation::Tanh}),
      {1, 1, 1, 1}, {0.7615941559557649});
}

TEST(Pool, MaxSameIgnoresPadding) {
  // All values negative: a zero from the padding would win if it took part.
  Tensor x({1, 1, 3, 3}, std::vector<double>{-1, -2, -3, -4, -5, -6, -7, -8, -9});
  expect_values(pool(true, x, 3, 1, Padding::Same), {1, 1, 3, 3},
                {-1, -1, -2, -1, -1, -2, -4, -4, -5});
}

TEST(Pool, AvgSameCountsInBoundsOnly) {
  // Neighbourhood sums 12 21 16 / 27 45 33 / 24 39 28 over 4, 6 or 9 in-bounds elements.
  expect_values(pool(false, grid3(), 3, 1, Padding::Same), {1, 1, 3, 3},
                {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7});
}

TEST(Pool, SameStrideTwoPadsAtTheEnd) {
  // 3x3, kernel 2, stride 2: output 2x2, one padding row/column after; windows are
  // {1 2 4 5}, {3 6}, {7 8}, {9}.
  expect_values(pool(true, grid3(), 2, 2, Padding::Same), {1, 1, 2, 2}, {5, 6, 8, 9});
  expect_values(pool(false, grid3(), 2, 2, Padding::Same), {1, 1, 2, 2}, {3, 4.5, 7.5, 9});
}

TEST(Pool, Valid) {
  expect_values(pool(true, grid3(), 2, 1, Padding::Valid), {1, 1, 2, 2}, {5, 6, 8, 9});
  expect_values(pool(false, grid3(), 2, 1, Padding::Valid), {1, 1, 2, 2}, {3, 4, 6, 7});
}

TEST(Pool, PerChannelWithFusedActivation) {
  // Channel 0 averages to -0.5 (relu -> 0), channel 1 to 2.5.
  Tensor x({1, 2, 2, 2}, std::vector<double>{1, -3, -1, 1, 1, 2, 3, 4});
  expect_values(pool(false, x, 2, 1, Padding::Valid, Activation::Relu), {1, 2, 1, 1}, {0, 2.5});
  expect_values(pool(true, x, 2, 1, Padding::Valid, Activation::Tanh), {1, 2, 1, 1},
                {0.7615941559557649, 0.999329299739067});
}
