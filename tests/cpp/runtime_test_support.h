// Helpers shared by the runtime tests: run a graph exactly and compare with hand-computed values.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ir/graph.h"
#include "runtime/interpreter.h"

namespace saturate::runtime::testing_support {

// The output "y" of a graph run in float64.
inline Tensor run_y(const ir::Graph& graph, const TensorMap& feeds) {
  return Interpreter(Precision::F64).run(graph, feeds).at("y");
}

// Shape equal, values within 1e-12 of the hand-computed ones.
inline void expect_values(const Tensor& t, const ir::Dims& dims,
                          const std::vector<double>& values) {
  EXPECT_EQ(t.dims, dims);
  EXPECT_THAT(t.data, ::testing::Pointwise(::testing::DoubleNear(1e-12), values));
}

// Normally distributed values (standard deviation 2) for comparing two graphs on random inputs.
inline Tensor random_tensor(const ir::Dims& dims, std::mt19937& engine) {
  std::normal_distribution<double> normal(0.0, 2.0);
  Tensor t(dims);
  for (double& v : t.data) v = normal(engine);
  return t;
}

// A fused operator against the operators it replaces: same shape, each value within 1e-12
// relative (float64 runs of two exact formulas differ only by rounding).
inline void expect_close(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dims, expected.dims);
  for (size_t i = 0; i < actual.data.size(); ++i) {
    EXPECT_NEAR(actual.data[i], expected.data[i], 1e-12 * (1 + std::abs(expected.data[i])))
        << ir::to_string(actual.dims) << " element " << i;
  }
}

}  // namespace saturate::runtime::testing_support
