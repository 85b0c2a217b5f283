// The rotary embedding kernel and the slice it is matched through: against hand-computed values,
// and rotary_embedding against the unfused rotate-half formula the ONNX Runtime library fuses
// into it (built from slice, a negation, concat, products and a sum) on random inputs and tables.
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

ValueRef slice(GraphBuilder& b, ValueRef x, int64_t axis, int64_t start, int64_t end) {
  return b.apply(OpKind::Slice, {x}, {{"axis", axis}, {"start", start}, {"end", end}});
}

}  // namespace

TEST(Slice, KeepsOneRangeOfOneAxis) {
  GraphBuilder b("slice");
  b.output("y", slice(b, b.input("x", {2, 4}), 1, 1, 3));
  TensorMap feeds = {{"x", Tensor({2, 4}, std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7})}};
  expect_values(run_y(b.graph(), feeds), {2, 2}, {1, 2, 5, 6});
}

TEST(Slice, OfTheFirstAxisKeepsWholeRows) {
  GraphBuilder b("slice");
  b.output("y", slice(b, b.input("x", {3, 2}), 0, 2, 3));
  TensorMap feeds = {{"x", Tensor({3, 2}, std::vector<double>{0, 1, 2, 3, 4, 5})}};
  expect_values(run_y(b.graph(), feeds), {1, 2}, {4, 5});
}

TEST(RotaryEmbedding, RotatesEachPairByItsAngle) {
  // One head vector (x1, x2) at two positions, angles 0 and pi/2: the second is rotated a
  // quarter turn, (x1 cos - x2 sin, x2 cos + x1 sin) = (-x2, x1).
  GraphBuilder b("rotary");
  ValueRef x = b.input("x", {1, 1, 2, 2});
  b.output("y",
           b.apply(OpKind::RotaryEmbedding, {x, b.weight({2, 2}, "cos"), b.weight({2, 2}, "sin")}));
  TensorMap feeds = {{"x", Tensor({1, 1, 2, 2}, std::vector<double>{3, 5, 3, 5})},
                     {"cos", Tensor({2, 2}, std::vector<double>{1, 1, 0, 0})},
                     {"sin", Tensor({2, 2}, std::vector<double>{0, 0, 1, 1})}};
  expect_values(run_y(b.graph(), feeds), {1, 1, 2, 2}, {3, 5, -5, 3});
}

TEST(RotaryEmbedding, EqualsTheRotateHalfFormulaForAnyTables) {
  std::mt19937 engine(17);
  const std::vector<std::pair<Dims, Dims>> cases{{Dims{2, 3, 5, 8}, Dims{5, 8}},
                                                 {Dims{1, 4, 7, 16}, Dims{1, 1, 7, 16}},
                                                 {Dims{3, 1, 2, 4}, Dims{1, 2, 4}}};
  for (const auto& [x_dims, table_dims] : cases) {
    const int64_t head = x_dims[3];
    GraphBuilder fused("fused");
    fused.output("y", fused.apply(OpKind::RotaryEmbedding,
                                  {fused.input("x", x_dims), fused.weight(table_dims, "cos"),
                                   fused.weight(table_dims, "sin")}));
    GraphBuilder unfused("unfused");
    ValueRef x = unfused.input("x", x_dims);
    ValueRef low = slice(unfused, x, 3, 0, head / 2);
    ValueRef high = slice(unfused, x, 3, head / 2, head);
    ValueRef rotated = unfused.concat(3, {unfused.mul(high, unfused.constant(-1.0)), low});
    unfused.output("y", unfused.add(unfused.mul(x, unfused.weight(table_dims, "cos")),
                                    unfused.mul(rotated, unfused.weight(table_dims, "sin"))));
    // Random tables, not real angles: the kernel must not rely on them repeating their halves.
    TensorMap feeds = {{"x", random_tensor(x_dims, engine)},
                       {"cos", random_tensor(table_dims, engine)},
                       {"sin", random_tensor(table_dims, engine)}};
    expect_close(run_y(fused.graph(), feeds), run_y(unfused.graph(), feeds));
  }
}
