// matmul against hand-computed products: plain, batched, broadcast batches, fused activations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_values;

namespace {

Tensor matmul(const Tensor& a, const Tensor& c, Activation activation = Activation::None) {
  GraphBuilder b("mm");
  b.output("y", b.matmul(b.input("a", a.dims), b.weight(c.dims, "b"), activation));
  return Interpreter({Precision::F64}).run(b.graph(), {{"a", a}, {"b", c}}).at("y");
}

}  // namespace

TEST(MatMul, TwoByThreeTimesThreeByTwo) {
  Tensor a({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  Tensor c({3, 2}, std::vector<double>{7, 8, 9, 10, 11, 12});
  expect_values(matmul(a, c), {2, 2}, {58, 64, 139, 154});
}

TEST(MatMul, BatchTimesSharedMatrix) {
  // [2 2 2] x [2 2]: the right operand is reused for both batch entries.
  Tensor a({2, 2, 2}, std::vector<double>{1, 2, 3, 4, 0, 1, 1, 0});
  Tensor c({2, 2}, std::vector<double>{5, 6, 7, 8});
  expect_values(matmul(a, c), {2, 2, 2}, {19, 22, 43, 50, 7, 8, 5, 6});
}

TEST(MatMul, BatchAxesBroadcastAgainstEachOther) {
  // [2 1 1 2] x [1 3 2 1] -> [2 3 1 1]: out[i][j] = a_i . b_j with
  // a = ([1 2], [3 4]) and b = ([1 0], [0 1], [1 1]).
  Tensor a({2, 1, 1, 2}, std::vector<double>{1, 2, 3, 4});
  Tensor c({1, 3, 2, 1}, std::vector<double>{1, 0, 0, 1, 1, 1});
  expect_values(matmul(a, c), {2, 3, 1, 1}, {1, 2, 3, 3, 4, 7});
}

TEST(MatMul, BatchedBothSides) {
  Tensor a({2, 1, 2}, std::vector<double>{1, 2, 3, 4});
  Tensor c({2, 2, 1}, std::vector<double>{5, 6, 7, 8});
  // [1 2].[5 6] = 17, [3 4].[7 8] = 53.
  expect_values(matmul(a, c), {2, 1, 1}, {17, 53});
}

TEST(MatMul, FusedActivations) {
  // [1 -1] x [[1 2] [3 1]] = [-2 1] before the activation.
  Tensor a({1, 2}, std::vector<double>{1, -1});
  Tensor c({2, 2}, std::vector<double>{1, 2, 3, 1});
  expect_values(matmul(a, c), {1, 2}, {-2, 1});
  expect_values(matmul(a, c, Activation::Relu), {1, 2}, {0, 1});
  expect_values(matmul(a, c, Activation::Sigmoid), {1, 2},
                {0.11920292202211755, 0.7310585786300049});
  expect_values(matmul(a, c, Activation::Tanh), {1, 2}, {-0.9640275800758169, 0.7615941559557649});
}
