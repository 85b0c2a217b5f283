// The fused_conv kernel (ONNX Runtime's FusedConv) against the unfused graph the ONNX Runtime
// library fuses into it: conv2d, the bias add (the bias reshaped to (C, 1, 1), as import writes
// ONNX Conv's bias), an optional residual add and the activation, on random inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

struct ConvCase {
  Dims x;
  Dims w;
  int64_t stride;
  Padding padding;
};

// A fused activation and its parameters (fused_conv's activation_alpha and activation_beta).
struct ActivationCase {
  Activation kind;
  double alpha = 0.0;
  double beta = 0.0;
};

// The activation as the standalone operator an exporter writes after the conv.
ValueRef activate(GraphBuilder& b, ValueRef y, const ActivationCase& activation) {
  switch (activation.kind) {
    case Activation::Relu:
      return b.relu(y);
    case Activation::Sigmoid:
      return b.sigmoid(y);
    case Activation::Tanh:
      return b.tanh(y);
    case Activation::Clip:
      return b.clip(y, activation.alpha, activation.beta);
    case Activation::LeakyRelu:
      return b.apply(OpKind::LeakyRelu, {y}, {{"alpha", activation.alpha}});
    case Activation::HardSigmoid:
      return b.apply(OpKind::HardSigmoid, {y},
                     {{"alpha", activation.alpha}, {"beta", activation.beta}});
    case Activation::None:
      break;
  }
  return y;
}

}  // namespace

TEST(FusedConv, AddsTheBiasPerChannelThenTheSumThenActivates) {
  // A 1x1 conv of weight 1 on two channels: y = relu(x + bias[c] + sum).
  GraphBuilder b("fused_conv");
  ValueRef x = b.input("x", {1, 2, 1, 2});
  ValueRef z = b.input("z", {1, 2, 1, 2});
  b.output("y", b.apply(OpKind::FusedConv, {x, b.weight({2, 1, 1, 1}, "w"), b.weight({2}, "b"), z},
                        {{"activation", static_cast<int64_t>(Activation::Relu)}}));
  TensorMap feeds = {{"x", Tensor({1, 2, 1, 2}, std::vector<double>{1, -4, 2, 3})},
                     {"w", Tensor({2, 1, 1, 1}, std::vector<double>{1, 1})},
                     {"b", Tensor({2}, std::vector<double>{10, -10})},
                     {"z", Tensor({1, 2, 1, 2}, std::vector<double>{0, -7, 1, 9})}};
  expect_values(run_y(b.graph(), feeds), {1, 2, 1, 2}, {11, 0, 0, 2});
}

TEST(FusedConv, EqualsConvPlusBiasPlusSumThenActivation) {
  std::mt19937 engine(23);
  const std::vector<ConvCase> cases{{{1, 3, 8, 8}, {4, 3, 3, 3}, 1, Padding::Same},
                                    {{2, 4, 9, 7}, {6, 2, 3, 3}, 2, Padding::Valid},  // 2 groups
                                    {{1, 8, 5, 5}, {8, 1, 3, 3}, 1, Padding::Same},   // depthwise
                                    {{2, 5, 6, 6}, {3, 5, 1, 1}, 1, Padding::Valid}};
  const std::vector<Dims> bias_shapes{{0}, {0, 1, 1}, {1, 0, 1, 1}};  // 0: the channel count
  for (const ConvCase& c : cases) {
    for (const ActivationCase& activation : std::vector<ActivationCase>{
             {Activation::None},
             {Activation::Relu},
             {Activation::Sigmoid},
             {Activation::Tanh},
             {Activation::Clip, 0.0, 6.0},  // ReLU6
             {Activation::Clip, -0.5, 0.25},
             {Activation::LeakyRelu, 0.1},
             {Activation::HardSigmoid, 1.0 / 6.0, 0.5},  // PyTorch's hardsigmoid
             {Activation::HardSigmoid, 0.2, 0.5}}) {
      for (bool with_sum : {false, true}) {
        for (Dims bias : bias_shapes) {
          for (int64_t& d : bias) d = d == 0 ? c.w[0] : d;
          GraphBuilder unfused("unfused");
          ValueRef conv = unfused.conv2d(unfused.input("x", c.x), unfused.weight(c.w, "w"),
                                         c.stride, c.stride, c.padding);
          const Dims out = unfused.graph().type(conv).dims;
          ValueRef y =
              unfused.add(conv, unfused.reshape(unfused.weight(bias, "b"), {c.w[0], 1, 1}));
          if (with_sum) y = unfused.add(y, unfused.input("z", out));
          unfused.output("y", activate(unfused, y, activation));

          GraphBuilder fused("fused");
          std::vector<ValueRef> inputs{fused.input("x", c.x), fused.weight(c.w, "w"),
                                       fused.weight(bias, "b")};
          if (with_sum) inputs.push_back(fused.input("z", out));
          fused.output("y", fused.apply(OpKind::FusedConv, inputs,
                                        {{"stride_h", c.stride},
                                         {"stride_w", c.stride},
                                         {"padding", static_cast<int64_t>(c.padding)},
                                         {"activation", static_cast<int64_t>(activation.kind)},
                                         {"activation_alpha", activation.alpha},
                                         {"activation_beta", activation.beta}}));
          TensorMap feeds = {{"x", random_tensor(c.x, engine)},
                             {"w", random_tensor(c.w, engine)},
                             {"b", random_tensor(bias, engine)},
                             {"z", random_tensor(out, engine)}};
          if (!with_sum) feeds.erase("z");
          expect_close(run_y(fused.graph(), feeds), run_y(unfused.graph(), feeds));
        }
      }
    }
  }
}

TEST(FusedConv, ParametrizedActivationsComputeTheirFormulas) {
  // A 1x1 conv of weight 1 and bias 0 on one channel: y = activation(x).
  const std::vector<double> x{-8, -1, 0, 0.5, 3, 7};
  auto run = [&](Activation kind, double alpha, double beta) {
    GraphBuilder b("fused_conv");
    b.output("y",
             b.apply(OpKind::FusedConv,
                     {b.input("x", {1, 1, 1, 6}), b.weight({1, 1, 1, 1}, "w"), b.weight({1}, "b")},
                     {{"activation", static_cast<int64_t>(kind)},
                      {"activation_alpha", alpha},
                      {"activation_beta", beta}}));
    return run_y(b.graph(), {{"x", Tensor({1, 1, 1, 6}, x)},
                             {"w", Tensor({1, 1, 1, 1}, std::vector<double>{1})},
                             {"b", Tensor({1}, std::vector<double>{0})}});
  };
  expect_values(run(Activation::Clip, 0, 6), {1, 1, 1, 6}, {0, 0, 0, 0.5, 3, 6});
  expect_values(run(Activation::LeakyRelu, 0.25, 0), {1, 1, 1, 6}, {-2, -0.25, 0, 0.5, 3, 7});
  expect_values(run(Activation::HardSigmoid, 0.25, 0.5), {1, 1, 1, 6}, {0, 0.25, 0.5, 0.625, 1, 1});
}

TEST(FusedConv, OnlyFusedConvTakesActivationsWithParameters) {
  GraphBuilder b("conv");
  ValueRef x = b.input("x", {1, 1, 2, 2});
  ValueRef w = b.weight({1, 1, 1, 1}, "w");
  EXPECT_THAT(
      [&] {
        b.apply(OpKind::Conv2d, {x, w}, {{"activation", static_cast<int64_t>(Activation::Clip)}});
      },
      ::testing::ThrowsMessage<saturate::Error>(::testing::HasSubstr("fused_conv's")));
  EXPECT_THAT(
      [&] {
        b.apply(OpKind::FusedConv, {x, w, b.weight({1}, "b")},
                {{"activation", static_cast<int64_t>(Activation::Clip)},
                 {"activation_alpha", 6.0},
                 {"activation_beta", 0.0}});
      },
      ::testing::ThrowsMessage<saturate::Error>(::testing::HasSubstr("exceeds its max")));
}
