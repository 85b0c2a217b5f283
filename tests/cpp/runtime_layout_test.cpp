// Layout operators against hand-written results: transpose, enlarge, concat, split, merge,
// reshape, plus split/concat round trips and merge's meaning for grouped convolutions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;
using ::testing::ElementsAreArray;

using saturate::runtime::testing_support::run_y;

namespace {

// Layout operators move values without arithmetic, so results must be exact.
void expect_exact(const Tensor& t, const Dims& dims, const std::vector<double>& values) {
  EXPECT_EQ(t.dims, dims);
  EXPECT_THAT(t.data, ElementsAreArray(values));
}

std::vector<double> iota(int64_t count, double start = 0) {
  std::vector<double> values;
  for (int64_t i = 0; i < count; ++i) values.push_back(start + static_cast<double>(i));
  return values;
}

Tensor enlarge(const Tensor& kernel, const Dims& reference) {
  GraphBuilder b("enlarge");
  b.output("y", b.enlarge(b.weight(kernel.dims, "k"), b.weight(reference, "r")));
  return run_y(b.graph(), {{"k", kernel}, {"r", Tensor(reference)}});
}

Tensor merge(const Tensor& w, int64_t count) {
  GraphBuilder b("merge");
  b.output("y", b.merge(b.weight(w.dims, "w"), count));
  return run_y(b.graph(), {{"w", w}});
}

}  // namespace

TEST(Transpose, Matrix) {
  GraphBuilder b("t");
  b.output("y", b.transpose(b.input("x", {2, 3}), {1, 0}));
  expect_exact(run_y(b.graph(), {{"x", Tensor({2, 3}, iota(6, 1))}}), {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(Transpose, OutputAxisIIsInputAxisPermI) {
  // x[j][k][i] = 12j + 4k + i; perm [2 0 1] gives y[i][j][k] = x[j][k][i].
  GraphBuilder b("t3");
  b.output("y", b.transpose(b.input("x", {2, 3, 4}), {2, 0, 1}));
  expect_exact(
      run_y(b.graph(), {{"x", Tensor({2, 3, 4}, iota(24))}}), {4, 2, 3},
      {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
}

TEST(Enlarge, CentresTheKernel) {
  expect_exact(enlarge(Tensor({1, 1, 1, 1}, 5.0), {1, 1, 3, 3}), {1, 1, 3, 3},
               {0, 0, 0, 0, 5, 0, 0, 0, 0});
  expect_exact(enlarge(Tensor({1, 1, 2, 2}, iota(4, 1)), {1, 1, 4, 4}), {1, 1, 4, 4},
               {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0});
  // Only the height grows here.
  expect_exact(enlarge(Tensor({1, 1, 1, 3}, iota(3, 1)), {1, 1, 3, 3}), {1, 1, 3, 3},
               {0, 0, 0, 1, 2, 3, 0, 0, 0});
}

TEST(Enlarge, EachPlaneSeparately) {
  // Two 1x1 planes grown to 3x1; the reference's O and I do not matter, only its kh and kw.
  expect_exact(enlarge(Tensor({2, 1, 1, 1}, std::vector<double>{7, 8}), {5, 5, 3, 1}), {2, 1, 3, 1},
               {0, 7, 0, 0, 8, 0});
}

TEST(Concat, AlongLastAxis) {
  GraphBuilder b("cat");
  b.output("y", b.concat(-1, {b.input("a", {2, 2}), b.input("b", {2, 1})}));
  expect_exact(run_y(b.graph(), {{"a", Tensor({2, 2}, iota(4, 1))},
                                 {"b", Tensor({2, 1}, std::vector<double>{5, 6})}}),
               {2, 3}, {1, 2, 5, 3, 4, 6});
}

TEST(Concat, ThreeInputsAlongFirstAxis) {
  GraphBuilder b("cat3");
  b.output("y", b.concat(0, {b.input("a", {2, 2}), b.input("b", {1, 2}), b.input("c", {1, 2})}));
  expect_exact(run_y(b.graph(), {{"a", Tensor({2, 2}, iota(4, 1))},
                                 {"b", Tensor({1, 2}, std::vector<double>{7, 8})},
                                 {"c", Tensor({1, 2}, std::vector<double>{9, 10})}}),
               {4, 2}, {1, 2, 3, 4, 7, 8, 9, 10});
}

TEST(Split, OneOutputPerPart) {
  GraphBuilder b("split");
  auto parts = b.split(b.input("x", {2, 3}), 1, {1, 2});
  b.output("p", parts[0]);
  b.output("q", parts[1]);
  TensorMap out = Interpreter({Precision::F64}).run(b.graph(), {{"x", Tensor({2, 3}, iota(6, 1))}});
  expect_exact(out.at("p"), {2, 1}, {1, 4});
  expect_exact(out.at("q"), {2, 2}, {2, 3, 5, 6});
}

TEST(Split, ThenConcatGivesBackTheInput) {
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    GraphBuilder b("roundtrip");
    ValueRef x = b.input("x", {4, 3, 5});
    int64_t size = b.dims(x)[static_cast<size_t>(axis < 0 ? axis + 3 : axis)];
    std::vector<int64_t> sizes = {1, size - 1};
    b.output("y", b.concat(axis, b.split(x, axis, sizes)));
    TensorMap feeds = random_feeds(b.graph(), 7);
    Tensor y = run_y(b.graph(), feeds);
    EXPECT_EQ(y.dims, feeds.at("x").dims) << "axis " << axis;
    EXPECT_EQ(y.data, feeds.at("x").data) << "axis " << axis;
  }
}

TEST(Merge, OneOutputPerGroup) {
  // (2, 1, 1, 1) with count 2: output channel o keeps its weight at input block o.
  expect_exact(merge(Tensor({2, 1, 1, 1}, std::vector<double>{1, 2}), 2), {2, 2, 1, 1},
               {1, 0, 0, 2});
}

TEST(Merge, BlockIsOutputChannelOverOutputsPerBlock) {
  // (4, 1, 1, 2) with count 2: O / count = 2, so channels 0-1 use block 0 and 2-3 block 1.
  expect_exact(merge(Tensor({4, 1, 1, 2}, iota(8, 1)), 2), {4, 2, 1, 2},
               {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8});
}

TEST(Merge, FullMergeMakesAGroupedConvDense) {
  // With count = groups, conv(x, merge(w)) (one group) equals the grouped conv(x, w).
  GraphBuilder b("merge_conv");
  ValueRef x = b.input("x", {1, 4, 3, 3});
  ValueRef w = b.weight({6, 2, 3, 3}, "w");  // 2 groups
  b.output("grouped", b.conv2d(x, w));
  b.output("dense", b.conv2d(x, b.merge(w, 2)));
  TensorMap out = Interpreter({Precision::F64}).run(b.graph(), random_feeds(b.graph(), 3));
  EXPECT_EQ(out.at("dense").dims, (Dims{1, 6, 3, 3}));
  EXPECT_LT(max_abs_difference(out.at("dense"), out.at("grouped")), 1e-12);
}

TEST(Reshape, InfersMinusOne) {
  GraphBuilder b("reshape");
  b.output("y", b.reshape(b.input("x", {2, 3, 2}), {3, -1}));
  expect_exact(run_y(b.graph(), {{"x", Tensor({2, 3, 2}, iota(12))}}), {3, 4}, iota(12));
}

TEST(Reshape, ToScalarAndBack) {
  GraphBuilder b("reshape1");
  ValueRef flat = b.reshape(b.input("x", {1, 1}), {});
  b.output("y", b.reshape(flat, {1, -1, 1}));
  expect_exact(run_y(b.graph(), {{"x", Tensor({1, 1}, 4.0)}}), {1, 1, 1}, {4});
}
