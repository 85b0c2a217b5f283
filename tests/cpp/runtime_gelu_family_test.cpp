// ONNX Runtime's GELU-family kernels (bias_gelu, fast_gelu, quick_gelu) against hand-computed
// values, and each against the unfused operators the ONNX Runtime library fuses into it, on
// random inputs of several shapes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"
#include "support/error.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_close;
using saturate::runtime::testing_support::expect_values;
using saturate::runtime::testing_support::random_tensor;
using saturate::runtime::testing_support::run_y;

namespace {

double erf_gelu(double x) {
  return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
}

const std::vector<Dims> kShapes{Dims{7}, Dims{3, 8}, Dims{2, 5, 16}, Dims{1, 3, 2, 6}};

// Runs `fused` and `unfused` (each builds y from x of the given shape) on the same random x and
// compares them.
void expect_same_as_unfused(const std::function<ValueRef(GraphBuilder&, ValueRef)>& fused,
                            const std::function<ValueRef(GraphBuilder&, ValueRef)>& unfused) {
  std::mt19937 engine(11);
  for (const Dims& dims : kShapes) {
    GraphBuilder a("fused");
    a.output("y", fused(a, a.input("x", dims)));
    GraphBuilder b("unfused");
    b.output("y", unfused(b, b.input("x", dims)));
    TensorMap feeds = {{"x", random_tensor(dims, engine)},
                       {"bias", random_tensor({dims.back()}, engine)}};
    expect_close(run_y(a.graph(), feeds), run_y(b.graph(), feeds));
  }
}

}  // namespace

TEST(BiasGelu, AddsTheBiasAlongTheLastAxisThenGelu) {
  GraphBuilder b("bias_gelu");
  ValueRef x = b.input("x", {2, 2});
  b.output("y", b.apply(OpKind::BiasGelu, {x, b.weight({2}, "bias")}));
  TensorMap feeds = {{"x", Tensor({2, 2}, std::vector<double>{0, 1, -1, 2})},
                     {"bias", Tensor({2}, std::vector<double>{1, -1})}};
  expect_values(run_y(b.graph(), feeds), {2, 2},
                {erf_gelu(1), erf_gelu(0), erf_gelu(0), erf_gelu(1)});
}

TEST(BiasGelu, RefusesABiasAlongAnotherAxis) {
  GraphBuilder b("bias_gelu");
  ValueRef x = b.input("x", {2, 3});
  EXPECT_THROW(b.apply(OpKind::BiasGelu, {x, b.weight({2}, "bias")}), saturate::Error);
  EXPECT_THROW(b.apply(OpKind::BiasGelu, {x, b.weight({1, 3}, "bias2")}), saturate::Error);
}

TEST(BiasGelu, EqualsTheUnfusedFormula) {
  // TorchScript's spelling: (x + b) * (1 + erf((x + b) / sqrt 2)) * 0.5.
  expect_same_as_unfused(
      [](GraphBuilder& g, ValueRef x) {
        return g.apply(OpKind::BiasGelu, {x, g.weight({g.graph().type(x).dims.back()}, "bias")});
      },
      [](GraphBuilder& g, ValueRef x) {
        ValueRef s = g.apply(OpKind::Add, {g.weight({g.graph().type(x).dims.back()}, "bias"), x});
        ValueRef erf =
            g.apply(OpKind::Erf, {g.apply(OpKind::Div, {s, g.constant(std::sqrt(2.0))})});
        ValueRef one_plus = g.apply(OpKind::Add, {erf, g.constant(1.0)});
        return g.apply(OpKind::Mul, {g.apply(OpKind::Mul, {s, one_plus}), g.constant(0.5)});
      });
}

TEST(FastGelu, HandValues) {
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); at x = 1: 0.841191990607...
  GraphBuilder b("fast_gelu");
  b.output("y", b.apply(OpKind::FastGelu, {b.input("x", {3})}));
  TensorMap feeds = {{"x", Tensor({3}, std::vector<double>{0, 1, -1})}};
  Tensor y = run_y(b.graph(), feeds);
  EXPECT_NEAR(y.data[0], 0.0, 1e-15);
  EXPECT_NEAR(y.data[1], 0.8411919906082768, 1e-12);
  EXPECT_NEAR(y.data[2], 0.8411919906082768 - 1, 1e-12);  // gelu(-x) = gelu(x) - x
}

TEST(FastGelu, EqualsTheUnfusedFormula) {
  // Both exporters' GPT-2 spelling: (x * 0.5) * (1 + tanh((x + x^3 * 0.044715) * 0.7978...)).
  expect_same_as_unfused(
      [](GraphBuilder& g, ValueRef x) { return g.apply(OpKind::FastGelu, {x}); },
      [](GraphBuilder& g, ValueRef x) {
        ValueRef cube = g.apply(OpKind::Pow, {x, g.constant(3.0)});
        ValueRef inner =
            g.apply(OpKind::Add, {x, g.apply(OpKind::Mul, {cube, g.constant(0.044715)})});
        ValueRef scaled =
            g.apply(OpKind::Mul, {inner, g.constant(std::sqrt(2 / std::numbers::pi))});
        ValueRef one_plus =
            g.apply(OpKind::Add, {g.apply(OpKind::Tanh, {scaled}), g.constant(1.0)});
        return g.apply(OpKind::Mul, {g.apply(OpKind::Mul, {x, g.constant(0.5)}), one_plus});
      });
}

TEST(QuickGelu, HandValues) {
  GraphBuilder b("quick_gelu");
  b.output("y", b.apply(OpKind::QuickGelu, {b.input("x", {3})}, {{"alpha", 2.0}}));
  TensorMap feeds = {{"x", Tensor({3}, std::vector<double>{0, 1, -0.5})}};
  expect_values(run_y(b.graph(), feeds), {3},
                {0, 1 / (1 + std::exp(-2.0)), -0.5 / (1 + std::exp(1.0))});
}

TEST(QuickGelu, AlphaOneEqualsSiLU) {
  // Llama's x * sigmoid(x).
  expect_same_as_unfused(
      [](GraphBuilder& g, ValueRef x) {
        return g.apply(OpKind::QuickGelu, {x}, {{"alpha", 1.0}});
      },
      [](GraphBuilder& g, ValueRef x) {
        return g.apply(OpKind::Mul, {x, g.apply(OpKind::Sigmoid, {x})});
      });
}

TEST(QuickGelu, EqualsTheUnfusedFormula) {
  expect_same_as_unfused(
      [](GraphBuilder& g, ValueRef x) {
        return g.apply(OpKind::QuickGelu, {x}, {{"alpha", 1.702}});
      },
      [](GraphBuilder& g, ValueRef x) {
        ValueRef scaled = g.apply(OpKind::Mul, {x, g.constant(1.702)});
        return g.apply(OpKind::Mul, {x, g.apply(OpKind::Sigmoid, {scaled})});
      });
}
