// Helpers shared by the runtime tests: run a graph exactly and compare with hand-computed values.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace saturate::runtime::testing_support
