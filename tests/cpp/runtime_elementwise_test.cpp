// Element-wise operators against hand-computed values: unary math, clip and broadcasting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_values;
using saturate::runtime::testing_support::run_y;

namespace {

// y = op(x) for a 1-D x.
Tensor unary(ValueRef (GraphBuilder::*op)(ValueRef), std::vector<double> x) {
  GraphBuilder b("unary");
  const auto n = static_cast<int64_t>(x.size());
  b.output("y", (b.*op)(b.input("x", {n})));
  return run_y(b.graph(), {{"x", Tensor({n}, std::move(x))}});
}

// y = op(a, b) for given feeds of any shapes.
Tensor binary(ValueRef (GraphBuilder::*op)(ValueRef, ValueRef), const Tensor& a, const Tensor& c) {
  GraphBuilder b("binary");
  b.output("y", (b.*op)(b.input("a", a.dims), b.input("b", c.dims)));
  return run_y(b.graph(), {{"a", a}, {"b", c}});
}

}  // namespace

TEST(Elementwise, Relu) {
  expect_values(unary(&GraphBuilder::relu, {-1, 0, 2}), {3}, {0, 0, 2});
}

TEST(Elementwise, Tanh) {
  expect_values(unary(&GraphBuilder::tanh, {0, 0.5, -2}), {3},
                {0, 0.46211715726000974, -0.9640275800758169});
}

TEST(Elementwise, Sigmoid) {
  expect_values(unary(&GraphBuilder::sigmoid, {0, 2, -2}), {3},
                {0.5, 0.8807970779778823, 0.11920292202211755});
}

TEST(Elementwise, Sqrt) {
  expect_values(unary(&GraphBuilder::sqrt, {4, 2, 0}), {3}, {2, 1.4142135623730951, 0});
}

TEST(Elementwise, Exp) {
  expect_values(unary(&GraphBuilder::exp, {0, 1, -1}), {3},
                {1, 2.718281828459045, 0.36787944117144233});
}

TEST(Elementwise, Erf) {
  expect_values(unary(&GraphBuilder::erf, {0, 0.5, -1}), {3},
                {0, 0.5204998778130465, -0.8427007929497149});
}

TEST(Elementwise, GeluIsTheExactErfForm) {
  // x * (1 + erf(x / sqrt 2)) / 2; the tanh approximation would give 0.8411919906082768 at 1.
  expect_values(unary(&GraphBuilder::gelu, {0, 1, -1, 0.5}), {4},
                {0, 0.8413447460685429, -0.15865525393145707, 0.34573123063700656});
}

TEST(Elementwise, Clip) {
  GraphBuilder b("clip");
  b.output("y", b.clip(b.input("x", {4}), -1, 2.5));
  expect_values(run_y(b.graph(), {{"x", Tensor({4}, std::vector<double>{-3, 0.5, 7, 2.5})}}), {4},
                {-1, 0.5, 2.5, 2.5});
}

TEST(Elementwise, AddBroadcastsTrailingVector) {
  Tensor a({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  Tensor c({3}, std::vector<double>{10, 20, 30});
  expect_values(binary(&GraphBuilder::add, a, c), {2, 3}, {11, 22, 33, 14, 25, 36});
}

TEST(Elementwise, SubBroadcastsBothOperands) {
  // [2 1] - [1 3] -> [2 3]: every row value minus every column value.
  Tensor a({2, 1}, std::vector<double>{1, 2});
  Tensor c({1, 3}, std::vector<double>{10, 20, 30});
  expect_values(binary(&GraphBuilder::sub, a, c), {2, 3}, {-9, -19, -29, -8, -18, -28});
}

TEST(Elementwise, DivBroadcastsColumn) {
  Tensor a({2, 2}, std::vector<double>{1, 2, 3, 4});
  Tensor c({2, 1}, std::vector<double>{2, 4});
  expect_values(binary(&GraphBuilder::div, a, c), {2, 2}, {0.5, 1, 0.75, 1});
  // And the other way round: the smaller operand on the left.
  expect_values(binary(&GraphBuilder::div, c, a), {2, 2}, {2, 1, 4.0 / 3.0, 1});
}

TEST(Elementwise, MulByScalarConstant) {
  GraphBuilder b("scale");
  b.output("y", b.mul(b.input("x", {3}), b.constant(2.0)));
  expect_values(run_y(b.graph(), {{"x", Tensor({3}, std::vector<double>{1, -2, 3})}}), {3},
                {2, -4, 6});
}

TEST(Elementwise, Pow) {
  Tensor a({3}, std::vector<double>{2, 9, 4});
  Tensor c({3}, std::vector<double>{3, 0.5, -1});
  expect_values(binary(&GraphBuilder::pow, a, c), {3}, {8, 3, 0.25});
}

TEST(Elementwise, BroadcastAcrossMiddleAxis) {
  // [2 1 2] + [3 1] -> [2 3 2].
  Tensor a({2, 1, 2}, std::vector<double>{1, 2, 3, 4});
  Tensor c({3, 1}, std::vector<double>{10, 20, 30});
  expect_values(binary(&GraphBuilder::add, a, c), {2, 3, 2},
                {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
}
