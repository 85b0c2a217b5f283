// The fused attention operator: hand-computed values, and agreement with the unfused graph it
// replaces (matmul, divide, softmax, matmul) on random inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ir/graph_builder.h"
#include "runtime/graph_comparison.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_values;
using saturate::runtime::testing_support::run_y;

TEST(Attention, MatchesHandValues) {
  // scores = q k = [1, 0] / 2 -> softmax [a, b] with a = e^0.5 / (e^0.5 + 1); y = 2a + 4b.
  GraphBuilder b("attention");
  b.output("y", b.attention(b.input("q", {1, 2}), b.input("k", {2, 2}), b.input("v", {2, 1}), 2));
  Tensor y = run_y(b.graph(), {{"q", Tensor({1, 2}, std::vector<double>{1, 0})},
                               {"k", Tensor({2, 2}, std::vector<double>{1, 0, 0, 1})},
                               {"v", Tensor({2, 1}, std::vector<double>{2, 4})}});
  const double a = std::exp(0.5) / (std::exp(0.5) + 1);
  expect_values(y, {1, 1}, {2 * a + 4 * (1 - a)});
}

TEST(Attention, EqualsTheUnfusedGraphOnRandomInputs) {
  auto build = [](bool fused) {
    GraphBuilder b(fused ? "fused" : "unfused");
    ValueRef q = b.input("q", {4, 8, 16});
    ValueRef k = b.input("k", {4, 16, 8});
    ValueRef v = b.input("v", {4, 8, 16});
    if (fused) {
      b.output("y", b.attention(q, k, v, 4));
    } else {
      ValueRef scores = b.softmax(b.div(b.matmul(q, k), b.constant(4)), -1);
      b.output("y", b.matmul(scores, v));
    }
    return std::move(b).finish();
  };
  GraphComparison comparison = compare_graphs(build(false), build(true), 7);
  EXPECT_TRUE(comparison.finite);
  EXPECT_LT(comparison.max_abs_error, 1e-9);
}
