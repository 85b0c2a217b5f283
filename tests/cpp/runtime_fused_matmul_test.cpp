// The fused_matmul kernel (ONNX Runtime's FusedMatMul) against the unfused graph the ONNX Runtime
// library fuses into it: transposes of the operands' last two axes, the product, and the scale,
// on random inputs with broadcast batch axes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ir/graph_builder.h"
#include "runtime/interpreter.h"
#include "runtime_test_support.h"

using namespace saturate::ir;
using namespace saturate::runtime;

using saturate::runtime::testing_support::expect_close;
using saturate::runtime::testing_support::expect_values;
using saturate::runtime::testing_support::random_tensor;
using saturate::runtime::testing_support::run_y;

namespace {

std::vector<int64_t> last_two_swapped(size_t rank) {
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[rank - 2], perm[rank - 1]);
  return perm;
}

Dims swapped(Dims dims) {
  std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
  return dims;
}

}  // namespace

TEST(FusedMatMul, ScalesTheProductOfTheTransposedOperands) {
  // alpha * a^T b^T with a (2, 1) and b (1, 2): a^T is (1, 2), b^T (2, 1), the product 1x1.
  GraphBuilder b("fused_matmul");
  b.output("y", b.apply(OpKind::FusedMatMul, {b.input("a", {2, 1}), b.input("b", {1, 2})},
                        {{"alpha", 0.5}, {"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}}));
  TensorMap feeds = {{"a", Tensor({2, 1}, std::vector<double>{3, 4})},
                     {"b", Tensor({1, 2}, std::vector<double>{5, 6})}};
  expect_values(run_y(b.graph(), feeds), {1, 1}, {0.5 * (3 * 5 + 4 * 6)});
}

TEST(FusedMatMul, EqualsTransposesProductAndScale) {
  std::mt19937 engine(29);
  // (a, b) as the product reads them, before any transpose; batch axes broadcast.
  const std::vector<std::pair<Dims, Dims>> cases{{{3, 4}, {4, 5}},
                                                 {{2, 3, 4}, {4, 6}},
                                                 {{2, 1, 3, 4}, {1, 5, 4, 2}},
                                                 {{1, 2, 5, 8}, {2, 2, 8, 5}}};
  for (const auto& [a_dims, b_dims] : cases) {
    for (int trans_a = 0; trans_a < 2; ++trans_a) {
      for (int trans_b = 0; trans_b < 2; ++trans_b) {
        for (double alpha : {1.0, 0.125, -3.0}) {
          // The fused operator reads the operands as stored: transposed where it transposes.
          const Dims a_stored = trans_a == 1 ? swapped(a_dims) : a_dims;
          const Dims b_stored = trans_b == 1 ? swapped(b_dims) : b_dims;
          GraphBuilder unfused("unfused");
          ValueRef a = unfused.input("a", a_stored);
          ValueRef b = unfused.input("b", b_stored);
          if (trans_a == 1) a = unfused.transpose(a, last_two_swapped(a_stored.size()));
          if (trans_b == 1) b = unfused.transpose(b, last_two_swapped(b_stored.size()));
          unfused.output("y", unfused.mul(unfused.matmul(a, b), unfused.constant(alpha)));

          GraphBuilder fused("fused");
          fused.output("y", fused.apply(OpKind::FusedMatMul,
                                        {fused.input("a", a_stored), fused.input("b", b_stored)},
                                        {{"alpha", alpha},
                                         {"trans_a", static_cast<int64_t>(trans_a)},
                                         {"trans_b", static_cast<int64_t>(trans_b)}}));
          TensorMap feeds = {{"a", random_tensor(a_stored, engine)},
                             {"b", random_tensor(b_stored, engine)}};
          expect_close(run_y(fused.graph(), feeds), run_y(unfused.graph(), feeds));
        }
      }
    }
  }
}
