// Normalizations and reductions against hand-computed values: batchnorm, softmax, layernorm,
// rms_norm, the skip (residual) normalizations, reduce_mean.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
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

Tensor vec(std::vector<double> values) {
  const auto n = static_cast<int64_t>(values.size());
  return Tensor({n}, std::move(values));
}

Tensor softmax(const Tensor& x, int64_t axis) {
  GraphBuilder b("softmax");
  b.output("y", b.softmax(b.input("x", x.dims), axis));
  return run_y(b.graph(), {{"x", x}});
}

Tensor reduce_mean(const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  GraphBuilder b("mean");
  b.output("y", b.reduce_mean(b.input("x", x.dims), std::move(axes), keepdims));
  return run_y(b.graph(), {{"x", x}});
}

}  // namespace

TEST(BatchNorm, NormalizesPerChannel) {
  // Channel 0: (x - 1) / sqrt(3 + 1) * 2 + 1 = x.  Channel 1: (x - 2) / sqrt(0 + 1) * 0.5 - 1.
  // Batch 2 checks that the channel index wraps per sample.
  GraphBuilder b("bn");
  ValueRef x = b.input("x", {2, 2, 1, 2});
  b.output("y", b.apply(OpKind::BatchNorm,
                        {x, b.weight({2}, "scale"), b.weight({2}, "bias"), b.weight({2}, "mean"),
                         b.weight({2}, "var")},
                        {{"epsilon", 1.0}}));
  TensorMap feeds = {{"x", Tensor({2, 2, 1, 2}, std::vector<double>{1, 3, 2, 4, 5, 7, 6, 8})},
                     {"scale", vec({2, 0.5})},
                     {"bias", vec({1, -1})},
                     {"mean", vec({1, 2})},
                     {"var", vec({3, 0})}};
  expect_values(run_y(b.graph(), feeds), {2, 2, 1, 2}, {1, 3, -1, 0, 5, 7, 1, 2});
}

TEST(BatchNorm, DefaultEpsilonIsUsed) {
  GraphBuilder b("bn_eps");
  ValueRef x = b.input("x", {1, 1});
  b.output("y", b.batchnorm(x));  // epsilon 1e-5; weights w0..w3 = scale, bias, mean, var
  TensorMap feeds = {{"x", Tensor({1, 1}, 1.0)},
                     {"w0", vec({1})},
                     {"w1", vec({0})},
                     {"w2", vec({0})},
                     {"w3", vec({0})}};
  expect_values(run_y(b.graph(), feeds), {1, 1}, {1 / std::sqrt(1e-5)});
}

TEST(Softmax, LastAxisMatchesHandValues) {
  Tensor y = softmax(Tensor({3, 3}, std::vector<double>{1, 2, 3, 0, 0, 0, 1000, 1000, -1000}), -1);
  // e^k / (e + e^2 + e^3); uniform row; huge values stay finite thanks to the max shift.
  expect_values(y, {3, 3},
                {0.09003057317038046, 0.24472847105479764, 0.6652409557748218, 1.0 / 3, 1.0 / 3,
                 1.0 / 3, 0.5, 0.5, 0});
  for (int row = 0; row < 3; ++row) {
    double sum = 0;
    for (int k = 0; k < 3; ++k) sum += y.data[static_cast<size_t>(row * 3 + k)];
    EXPECT_NEAR(sum, 1.0, 1e-15) << "row " << row;
  }
}

TEST(Softmax, FirstAxis) {
  // Columns [1 2] and [1 3].
  expect_values(softmax(Tensor({2, 2}, std::vector<double>{1, 1, 2, 3}), 0), {2, 2},
                {0.2689414213699951, 0.11920292202211755, 0.7310585786300049, 0.8807970779778823});
}

TEST(Softmax, MiddleAxisOfRankThree) {
  // x[i][j][k] with softmax over j: each (i, k) pair is [0 ln 3] -> [1/4 3/4].
  const double l3 = std::log(3.0);
  Tensor x({2, 2, 2}, std::vector<double>{0, 0, l3, l3, 5, 5, 5 + l3, 5 + l3});
  expect_values(softmax(x, 1), {2, 2, 2}, {0.25, 0.25, 0.75, 0.75, 0.25, 0.25, 0.75, 0.75});
}

TEST(LayerNorm, LastAxis) {
  // Row [1 3]: mean 2, variance 1, (x - 2) / sqrt(1 + 1) * [1 2] + [0 1].
  // Row [2 2]: variance 0, so just the bias.
  GraphBuilder b("ln");
  b.output("y", b.layernorm(b.input("x", {2, 2}), 1.0));  // scale w0, bias w1
  TensorMap feeds = {{"x", Tensor({2, 2}, std::vector<double>{1, 3, 2, 2})},
                     {"w0", vec({1, 2})},
                     {"w1", vec({0, 1})}};
  expect_values(run_y(b.graph(), feeds), {2, 2}, {-0.7071067811865475, 2.414213562373095, 0, 1});
}

TEST(LayerNorm, OverTrailingAxesWithPopulationVariance) {
  // Axis 1 of [2 2 2]: each sample's four values are normalized together. [1 2 3 4] has mean
  // 2.5 and population variance 1.25; [2 4 6 8] normalizes to the same values.
  GraphBuilder b("ln2");
  ValueRef x = b.input("x", {2, 2, 2});
  ValueRef scale = b.weight({2, 2}, "scale");
  ValueRef bias = b.weight({2, 2}, "bias");
  b.output("y",
           b.apply(OpKind::LayerNorm, {x, scale, bias}, {{"axis", int64_t{1}}, {"epsilon", 0.0}}));
  TensorMap feeds = {{"x", Tensor({2, 2, 2}, std::vector<double>{1, 2, 3, 4, 2, 4, 6, 8})},
                     {"scale", Tensor({2, 2}, std::vector<double>{1, 2, 3, 4})},
                     {"bias", Tensor({2, 2}, std::vector<double>{0, 0, 0, 1})}};
  const std::vector<double> once = {-1.3416407864998738, -0.8944271909999159, 1.3416407864998738,
                                    6.366563145999495};
  std::vector<double> expected = once;
  expected.insert(expected.end(), once.begin(), once.end());
  expect_values(run_y(b.graph(), feeds), {2, 2, 2}, expected);
}

TEST(RMSNorm, LastAxis) {
  // Row [3 4]: mean square 12.5, so x / sqrt(12.5 + 0.5) * [1 2]. Row [0 0]: zeros.
  GraphBuilder b("rms");
  ValueRef x = b.input("x", {2, 2});
  b.output("y", b.apply(OpKind::RMSNorm, {x, b.weight({2}, "scale")}, {{"epsilon", 0.5}}));
  TensorMap feeds = {{"x", Tensor({2, 2}, std::vector<double>{3, 4, 0, 0})},
                     {"scale", vec({1, 2})}};
  const double rms = std::sqrt(13.0);
  expect_values(run_y(b.graph(), feeds), {2, 2}, {3 / rms, 8 / rms, 0, 0});
}

// The fused operator against the operators the ONNX Runtime library fuses into it (the
// exporters' x * (1 / sqrt(mean(x^2) + eps)) * w), on random inputs of several shapes.
TEST(RMSNorm, EqualsTheUnfusedFormula) {
  std::mt19937 engine(7);
  for (const Dims& dims : {Dims{5}, Dims{3, 8}, Dims{2, 4, 16}, Dims{1, 3, 2, 6}}) {
    const Dims last{dims.back()};
    const double epsilon = 1e-6;
    GraphBuilder fused("fused");
    ValueRef x = fused.input("x", dims);
    fused.output(
        "y", fused.apply(OpKind::RMSNorm, {x, fused.weight(last, "w")}, {{"epsilon", epsilon}}));
    GraphBuilder unfused("unfused");
    ValueRef ux = unfused.input("x", dims);
    ValueRef square = unfused.apply(OpKind::Pow, {ux, unfused.constant(2.0)});
    ValueRef mean = unfused.reduce_mean(square, {-1}, true);
    ValueRef shifted = unfused.apply(OpKind::Add, {mean, unfused.constant(epsilon)});
    ValueRef inverse =
        unfused.apply(OpKind::Div, {unfused.constant(1.0), unfused.apply(OpKind::Sqrt, {shifted})});
    ValueRef normalized = unfused.apply(OpKind::Mul, {ux, inverse});
    unfused.output("y", unfused.apply(OpKind::Mul, {unfused.weight(last, "w"), normalized}));

    TensorMap feeds = {{"x", random_tensor(dims, engine)}, {"w", random_tensor(last, engine)}};
    expect_close(run_y(fused.graph(), feeds), run_y(unfused.graph(), feeds));
  }
}

// The residual normalizations against the operators the ONNX Runtime library fuses into them:
// the sum x + skip, then the normalization spelled out (mean, variance, square root), on random
// inputs of several shapes. Both outputs: the normalized sum and the sum.
TEST(SkipNormalization, EqualsTheUnfusedFormula) {
  std::mt19937 engine(11);
  for (bool simplified : {false, true}) {
    for (const Dims& dims : {Dims{3, 8}, Dims{2, 4, 16}, Dims{1, 5, 32}}) {
      SCOPED_TRACE(std::string(simplified ? "skip_rms_norm " : "skip_layer_norm ") +
                   to_string(dims));
      const Dims last{dims.back()};
      const double epsilon = 1e-5;
      GraphBuilder fused("fused");
      std::vector<ValueRef> inputs{fused.input("x", dims), fused.input("skip", dims),
                                   fused.weight(last, "gamma")};
      if (!simplified) inputs.push_back(fused.weight(last, "beta"));
      std::vector<ValueRef> outputs = fused.apply_outputs(
          simplified ? OpKind::SkipRMSNorm : OpKind::SkipLayerNorm, inputs, {{"epsilon", epsilon}});
      fused.output("y", outputs[0]);
      fused.output("sum", outputs[1]);

      GraphBuilder unfused("unfused");
      ValueRef sum =
          unfused.apply(OpKind::EwAdd, {unfused.input("x", dims), unfused.input("skip", dims)});
      ValueRef centred = sum;
      if (!simplified) {
        ValueRef mean = unfused.reduce_mean(sum, {-1}, true);
        centred = unfused.apply(OpKind::Sub, {sum, mean});
      }
      ValueRef square = unfused.apply(OpKind::Mul, {centred, centred});
      ValueRef variance = unfused.reduce_mean(square, {-1}, true);
      ValueRef deviation = unfused.apply(
          OpKind::Sqrt, {unfused.apply(OpKind::Add, {variance, unfused.constant(epsilon)})});
      ValueRef normalized = unfused.apply(OpKind::Div, {centred, deviation});
      ValueRef scaled = unfused.apply(OpKind::Mul, {normalized, unfused.weight(last, "gamma")});
      if (!simplified) scaled = unfused.apply(OpKind::Add, {scaled, unfused.weight(last, "beta")});
      unfused.output("y", scaled);
      unfused.output("sum", sum);

      TensorMap feeds = {{"x", random_tensor(dims, engine)},
                         {"skip", random_tensor(dims, engine)},
                         {"gamma", random_tensor(last, engine)},
                         {"beta", random_tensor(last, engine)}};
      Interpreter interpreter(Precision::F64);
      TensorMap got = interpreter.run(fused.graph(), feeds);
      TensorMap want = interpreter.run(unfused.graph(), feeds);
      expect_close(got.at("y"), want.at("y"));
      expect_close(got.at("sum"), want.at("sum"));
    }
  }
}

// skip (1, S, D) for x (B, S, D): every batch row adds the same skip rows, as a broadcasting
// Add does.
TEST(SkipNormalization, SharedSkipBroadcastsOverTheBatch) {
  std::mt19937 engine(12);
  const Dims dims{3, 4, 8};
  const Dims shared{1, 4, 8};
  GraphBuilder fused("fused");
  std::vector<ValueRef> outputs = fused.apply_outputs(
      OpKind::SkipRMSNorm,
      {fused.input("x", dims), fused.input("skip", shared), fused.weight({8}, "gamma")},
      {{"epsilon", 1e-6}});
  fused.output("y", outputs[0]);
  fused.output("sum", outputs[1]);
  GraphBuilder unfused("unfused");
  ValueRef sum =
      unfused.apply(OpKind::Add, {unfused.input("x", dims), unfused.input("skip", shared)});
  unfused.output("y", unfused.apply(OpKind::RMSNorm, {sum, unfused.weight({8}, "gamma")},
                                    {{"epsilon", 1e-6}}));
  unfused.output("sum", sum);
  TensorMap feeds = {{"x", random_tensor(dims, engine)},
                     {"skip", random_tensor(shared, engine)},
                     {"gamma", random_tensor({8}, engine)}};
  Interpreter interpreter(Precision::F64);
  TensorMap got = interpreter.run(fused.graph(), feeds);
  TensorMap want = interpreter.run(unfused.graph(), feeds);
  expect_close(got.at("y"), want.at("y"));
  expect_close(got.at("sum"), want.at("sum"));
  // Any other broadcast is refused by the shape check (the kernels take none).
  GraphBuilder refused("refused");
  EXPECT_THROW(refused.apply_outputs(OpKind::SkipRMSNorm,
                                     {refused.input("x", dims), refused.input("skip", {3, 1, 8}),
                                      refused.weight({8}, "gamma")},
                                     {{"epsilon", 1e-6}}),
               saturate::Error);
}

TEST(ReduceMean, KeepDims) {
  Tensor x({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  expect_values(reduce_mean(x, {1}, true), {2, 1}, {2, 5});
  expect_values(reduce_mean(x, {-1}, true), {2, 1}, {2, 5});
  expect_values(reduce_mean(x, {0}, true), {1, 3}, {2.5, 3.5, 4.5});
}

TEST(ReduceMean, DropDims) {
  Tensor x({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  expect_values(reduce_mean(x, {0}, false), {3}, {2.5, 3.5, 4.5});
  expect_values(reduce_mean(x, {0, 1}, false), {}, {3.5});
}

TEST(ReduceMean, NonAdjacentAxes) {
  // x[i][j][k] = 4i + 2j + k; over i and k: j = 0 -> {0 1 4 5}, j = 1 -> {2 3 6 7}.
  Tensor x({2, 2, 2}, std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
  expect_values(reduce_mean(x, {0, 2}, true), {1, 2, 1}, {2.5, 4.5});
  expect_values(reduce_mean(x, {2, 0}, false), {2}, {2.5, 4.5});
}
