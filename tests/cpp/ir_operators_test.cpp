// The operator registry and every operator's signature checks and shape rule. Expected shapes
// are computed by hand, not by re-running the rules.
#include <gtest/gtest.h>

#include <limits>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "support/error.h"

using namespace saturate::ir;

namespace saturate::ir {
// Lets GoogleTest print "f32[2 3]" instead of the object's bytes.
void PrintTo(const TensorType& type, std::ostream* out) {
  *out << to_string(type);
}
}  // namespace saturate::ir

namespace {

TensorType f32(Dims dims) {
  return {DType::F32, std::move(dims)};
}
TensorType f64(Dims dims) {
  return {DType::F64, std::move(dims)};
}
int64_t code(Activation a) {
  return static_cast<int64_t>(a);
}
int64_t code(Padding p) {
  return static_cast<int64_t>(p);
}
OpKind kind_at(int index) {
  return static_cast<OpKind>(index);
}

Attributes window(int64_t kh, int64_t kw, int64_t stride_h, int64_t stride_w, Padding padding) {
  return {{"kernel_h", kh},
          {"kernel_w", kw},
          {"stride_h", stride_h},
          {"stride_w", stride_w},
          {"padding", code(padding)}};
}

// Runs the check and returns the error message; fails the test when nothing is thrown.
std::string error_of(OpKind op, const std::vector<TensorType>& inputs, const Attributes& attrs) {
  try {
    auto outputs = infer_types(op, inputs, attrs);
    ADD_FAILURE() << to_string(op) << " accepted the inputs, giving " << outputs.size()
                  << " outputs, the first " << (outputs.empty() ? "-" : to_string(outputs[0]));
  } catch (const saturate::Error& error) {
    return error.what();
  }
  return "";
}

void expect_mentions(const std::string& message, const std::vector<std::string>& fragments,
                     const std::string& label) {
  for (const auto& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos)
        << label << ": '" << message << "' does not mention '" << fragment << "'";
  }
}

struct ValidCase {
  std::string label;
  OpKind op;
  std::vector<TensorType> inputs;
  Attributes attrs;
  std::vector<TensorType> expected;
};

const std::vector<ValidCase>& valid_cases() {
  static const std::vector<ValidCase> cases = {
      // Leaves: the type comes from the attributes.
      {"input", OpKind::Input, {}, {{"shape", Dims{2, 3}}}, {f32({2, 3})}},
      {"input f64", OpKind::Input, {}, {{"shape", Dims{5}}, {"dtype", "f64"}}, {f64({5})}},
      {"input scalar", OpKind::Input, {}, {{"shape", Dims{}}}, {f32({})}},
      {"weight", OpKind::Weight, {}, {{"shape", Dims{4, 1}}}, {f32({4, 1})}},
      {"constant", OpKind::Constant, {}, {{"shape", Dims{2, 2}}, {"value", 1.5}}, {f32({2, 2})}},
      {"constant f64 scalar",
       OpKind::Constant,
       {},
       {{"shape", Dims{}}, {"value", -3.0}, {"dtype", "f64"}},
       {f64({})}},

      // Broadcasting binaries.
      {"ewadd same shape", OpKind::EwAdd, {f32({2, 3}), f32({2, 3})}, {}, {f32({2, 3})}},
      {"ewmul same shape", OpKind::EwMul, {f32({4, 1}), f32({4, 1})}, {}, {f32({4, 1})}},
      {"add bias", OpKind::Add, {f32({2, 3}), f32({3})}, {}, {f32({2, 3})}},
      {"add both sides", OpKind::Add, {f32({4, 1, 5}), f32({3, 1})}, {}, {f32({4, 3, 5})}},
      {"mul scalar", OpKind::Mul, {f32({2, 3}), f32({})}, {}, {f32({2, 3})}},
      {"ewadd f64", OpKind::EwAdd, {f64({2}), f64({2})}, {}, {f64({2})}},
      {"mul outer", OpKind::Mul, {f32({2, 1}), f32({1, 3})}, {}, {f32({2, 3})}},
      {"sub", OpKind::Sub, {f32({5}), f32({5})}, {}, {f32({5})}},
      {"div scalar", OpKind::Div, {f32({}), f32({2, 2})}, {}, {f32({2, 2})}},
      {"pow", OpKind::Pow, {f32({3, 1, 2}), f32({4, 1})}, {}, {f32({3, 4, 2})}},

      // Matrix products.
      {"matmul", OpKind::MatMul, {f32({8, 16}), f32({16, 32})}, {}, {f32({8, 32})}},
      {"matmul relu",
       OpKind::MatMul,
       {f32({8, 16}), f32({16, 32})},
       {{"activation", code(Activation::Relu)}},
       {f32({8, 32})}},
      {"matmul batched", OpKind::MatMul, {f32({4, 8, 16}), f32({16, 32})}, {}, {f32({4, 8, 32})}},
      {"matmul batch broadcast",
       OpKind::MatMul,
       {f32({2, 1, 8, 16}), f32({3, 16, 4})},
       {},
       {f32({2, 3, 8, 4})}},

      // Convolutions: SAME gives ceil(H / stride), VALID (H - k) / stride + 1.
      {"conv same",
       OpKind::Conv2d,
       {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})},
       {},
       {f32({1, 16, 32, 32})}},
      {"conv valid stride 2",
       OpKind::Conv2d,
       {f32({1, 3, 32, 32}), f32({16, 3, 3, 3})},
       {{"padding", code(Padding::Valid)}, {"stride_h", int64_t{2}}, {"stride_w", int64_t{2}}},
       {f32({1, 16, 15, 15})}},
      {"conv 4 groups",
       OpKind::Conv2d,
       {f32({2, 8, 10, 10}), f32({12, 2, 3, 3})},
       {},
       {f32({2, 12, 10, 10})}},
      {"conv depthwise same stride 2",
       OpKind::Conv2d,
       {f32({1, 8, 7, 7}), f32({8, 1, 3, 3})},
       {{"stride_h", int64_t{2}}, {"stride_w", int64_t{2}}, {"activation", code(Activation::Tanh)}},
       {f32({1, 8, 4, 4})}},
      {"conv valid asymmetric",
       OpKind::Conv2d,
       {f32({1, 1, 9, 11}), f32({2, 1, 3, 5})},
       {{"padding", code(Padding::Valid)}, {"stride_h", int64_t{2}}},
       {f32({1, 2, 4, 7})}},

      // Unary element-wise: same type, dtype included.
      {"relu", OpKind::Relu, {f32({2, 3})}, {}, {f32({2, 3})}},
      {"tanh f64", OpKind::Tanh, {f64({4})}, {}, {f64({4})}},
      {"sigmoid scalar", OpKind::Sigmoid, {f32({})}, {}, {f32({})}},
      {"sqrt", OpKind::Sqrt, {f32({7, 1})}, {}, {f32({7, 1})}},
      {"erf", OpKind::Erf, {f32({3})}, {}, {f32({3})}},
      {"exp", OpKind::Exp, {f32({1, 2, 3})}, {}, {f32({1, 2, 3})}},
      {"gelu", OpKind::Gelu, {f32({2, 8})}, {}, {f32({2, 8})}},
      {"clip relu6", OpKind::Clip, {f32({3})}, {{"min", 0.0}, {"max", 6.0}}, {f32({3})}},
      {"clip min equals max", OpKind::Clip, {f32({3})}, {{"min", 1.0}, {"max", 1.0}}, {f32({3})}},

      // Pools.
      {"poolmax valid",
       OpKind::PoolMax,
       {f32({1, 4, 8, 8})},
       window(2, 2, 2, 2, Padding::Valid),
       {f32({1, 4, 4, 4})}},
      {"poolmax same stride 2",
       OpKind::PoolMax,
       {f32({2, 3, 7, 7})},
       window(3, 3, 2, 2, Padding::Same),
       {f32({2, 3, 4, 4})}},
      {"poolavg same stride 1",
       OpKind::PoolAvg,
       {f32({1, 2, 5, 6})},
       window(3, 3, 1, 1, Padding::Same),
       {f32({1, 2, 5, 6})}},
      {"poolavg valid rectangular",
       OpKind::PoolAvg,
       {f32({1, 1, 7, 9})},
       window(3, 2, 2, 2, Padding::Valid),
       {f32({1, 1, 3, 4})}},

      // Layout.
      {"transpose 3d",
       OpKind::Transpose,
       {f32({2, 3, 4})},
       {{"perm", Dims{2, 0, 1}}},
       {f32({4, 2, 3})}},
      {"transpose 2d", OpKind::Transpose, {f32({5, 6})}, {{"perm", Dims{1, 0}}}, {f32({6, 5})}},
      {"transpose scalar", OpKind::Transpose, {f32({})}, {{"perm", Dims{}}}, {f32({})}},
      {"enlarge 1x1 to 3x3",
       OpKind::Enlarge,
       {f32({8, 4, 1, 1}), f32({8, 4, 3, 3})},
       {},
       {f32({8, 4, 3, 3})}},
      {"enlarge keeps kernel channels",
       OpKind::Enlarge,
       {f32({8, 4, 3, 1}), f32({2, 2, 5, 5})},
       {},
       {f32({8, 4, 5, 5})}},
      {"concat axis 1",
       OpKind::Concat,
       {f32({2, 3}), f32({2, 5})},
       {{"axis", int64_t{1}}},
       {f32({2, 8})}},
      {"concat three on axis -1",
       OpKind::Concat,
       {f32({2, 3, 4}), f32({2, 3, 1}), f32({2, 3, 2})},
       {{"axis", int64_t{-1}}},
       {f32({2, 3, 7})}},
      {"concat one", OpKind::Concat, {f32({4, 4})}, {{"axis", int64_t{0}}}, {f32({4, 4})}},
      {"split two",
       OpKind::Split,
       {f32({6, 4})},
       {{"axis", int64_t{0}}, {"sizes", Dims{2, 4}}},
       {f32({2, 4}), f32({4, 4})}},
      {"split three on axis -1",
       OpKind::Split,
       {f32({3, 4})},
       {{"axis", int64_t{-1}}, {"sizes", Dims{1, 1, 2}}},
       {f32({3, 1}), f32({3, 1}), f32({3, 2})}},
      {"split one",
       OpKind::Split,
       {f32({5})},
       {{"axis", int64_t{0}}, {"sizes", Dims{5}}},
       {f32({5})}},
      {"merge 2", OpKind::Merge, {f32({8, 2, 3, 3})}, {{"count", int64_t{2}}}, {f32({8, 4, 3, 3})}},
      {"merge all groups",
       OpKind::Merge,
       {f32({8, 2, 3, 3})},
       {{"count", int64_t{8}}},
       {f32({8, 16, 3, 3})}},
      {"merge 1", OpKind::Merge, {f32({8, 2, 3, 3})}, {{"count", int64_t{1}}}, {f32({8, 2, 3, 3})}},
      {"reshape", OpKind::Reshape, {f32({2, 3, 4})}, {{"shape", Dims{6, 4}}}, {f32({6, 4})}},
      {"reshape infer first",
       OpKind::Reshape,
       {f32({2, 3, 4})},
       {{"shape", Dims{-1, 4}}},
       {f32({6, 4})}},
      {"reshape infer last",
       OpKind::Reshape,
       {f32({2, 3, 4})},
       {{"shape", Dims{2, -1}}},
       {f32({2, 12})}},
      {"reshape flatten", OpKind::Reshape, {f32({2, 3, 4})}, {{"shape", Dims{-1}}}, {f32({24})}},
      {"reshape to scalar", OpKind::Reshape, {f32({1, 1})}, {{"shape", Dims{}}}, {f32({})}},

      // Normalizations and reductions.
      {"batchnorm nchw",
       OpKind::BatchNorm,
       {f32({2, 3, 4, 4}), f32({3}), f32({3}), f32({3}), f32({3})},
       {},
       {f32({2, 3, 4, 4})}},
      {"batchnorm rank 2",
       OpKind::BatchNorm,
       {f32({5, 3}), f32({3}), f32({3}), f32({3}), f32({3})},
       {{"epsilon", 1e-3}},
       {f32({5, 3})}},
      {"noop", OpKind::Noop, {f32({2, 2}), f32({3})}, {}, {f32({2, 2})}},
      {"softmax last", OpKind::Softmax, {f32({2, 5})}, {}, {f32({2, 5})}},
      {"softmax axis 0", OpKind::Softmax, {f32({2, 5})}, {{"axis", int64_t{0}}}, {f32({2, 5})}},
      {"softmax axis -2",
       OpKind::Softmax,
       {f64({2, 3, 4})},
       {{"axis", int64_t{-2}}},
       {f64({2, 3, 4})}},
      {"layernorm last",
       OpKind::LayerNorm,
       {f32({2, 3, 4}), f32({4}), f32({4})},
       {},
       {f32({2, 3, 4})}},
      {"layernorm from axis 1",
       OpKind::LayerNorm,
       {f32({2, 3, 4}), f32({3, 4}), f32({3, 4})},
       {{"axis", int64_t{1}}, {"epsilon", 1e-6}},
       {f32({2, 3, 4})}},
      {"rms_norm last", OpKind::RMSNorm, {f32({2, 3, 4}), f32({4})}, {}, {f32({2, 3, 4})}},
      {"skip_layer_norm: the normalized sum and the sum",
       OpKind::SkipLayerNorm,
       {f32({2, 3, 4}), f32({2, 3, 4}), f32({4}), f32({4})},
       {},
       {f32({2, 3, 4}), f32({2, 3, 4})}},
      {"skip_rms_norm on tokens",
       OpKind::SkipRMSNorm,
       {f32({6, 4}), f32({6, 4}), f32({4})},
       {{"epsilon", 1e-6}},
       {f32({6, 4}), f32({6, 4})}},
      {"bias_gelu", OpKind::BiasGelu, {f32({2, 3, 4}), f32({4})}, {}, {f32({2, 3, 4})}},
      {"fast_gelu", OpKind::FastGelu, {f32({2, 8})}, {}, {f32({2, 8})}},
      {"quick_gelu", OpKind::QuickGelu, {f32({2, 8})}, {{"alpha", 1.0}}, {f32({2, 8})}},
      {"leaky_relu", OpKind::LeakyRelu, {f32({2, 8})}, {{"alpha", 0.1}}, {f32({2, 8})}},
      {"hard_sigmoid",
       OpKind::HardSigmoid,
       {f32({2, 8})},
       {{"alpha", 0.2}, {"beta", 0.5}},
       {f32({2, 8})}},
      {"rms_norm from axis 1",
       OpKind::RMSNorm,
       {f32({2, 3, 4}), f32({3, 4})},
       {{"axis", int64_t{1}}, {"epsilon", 1e-6}},
       {f32({2, 3, 4})}},
      {"reduce_mean keepdims",
       OpKind::ReduceMean,
       {f32({2, 3, 4})},
       {{"axes", Dims{1}}},
       {f32({2, 1, 4})}},
      {"reduce_mean drop two",
       OpKind::ReduceMean,
       {f32({2, 3, 4})},
       {{"axes", Dims{0, -1}}, {"keepdims", int64_t{0}}},
       {f32({3})}},
      {"reduce_mean all",
       OpKind::ReduceMean,
       {f32({2, 3, 4})},
       {{"axes", Dims{2, 0, 1}}, {"keepdims", int64_t{0}}},
       {f32({})}},
      {"reduce_mean spatial keepdims",
       OpKind::ReduceMean,
       {f32({1, 8, 7, 7})},
       {{"axes", Dims{2, 3}}},
       {f32({1, 8, 1, 1})}},
      {"attention heads",
       OpKind::Attention,
       {f32({4, 8, 16}), f32({4, 16, 10}), f32({4, 10, 6})},
       {{"scale", 4.0}},
       {f32({4, 8, 6})}},
      {"attention broadcast keys",
       OpKind::Attention,
       {f32({2, 3, 5}), f32({5, 7}), f32({7, 2})},
       {},
       {f32({2, 3, 2})}},
      {"multi_head_attention self",
       OpKind::MultiHeadAttention,
       {f32({2, 5, 8}), f32({2, 5, 8}), f32({2, 5, 8})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {f32({2, 5, 8})}},
      {"multi_head_attention cross, padding mask",
       OpKind::MultiHeadAttention,
       {f32({2, 5, 8}), f32({2, 7, 8}), f32({2, 7, 4}), f32({2, 1, 1, 7})},
       {{"num_heads", int64_t{4}}, {"scale", 0.5}},
       {f32({2, 5, 4})}},
      {"qkv_attention with a padding mask",
       OpKind::QkvAttention,
       {f32({2, 5, 6}), f32({6, 24}), f32({24}), f32({2, 1, 1, 5})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {f32({2, 5, 8})}},
      {"pad spatial",
       OpKind::Pad,
       {f32({1, 3, 5, 5})},
       {{"pads", Dims{0, 0, 1, 2, 0, 0, 0, 1}}},
       {f32({1, 3, 6, 8})}},
      {"slice the second half of the last axis",
       OpKind::Slice,
       {f32({2, 4, 16})},
       {{"axis", int64_t{-1}}, {"start", int64_t{8}}, {"end", int64_t{16}}},
       {f32({2, 4, 8})}},
      {"slice one position",
       OpKind::Slice,
       {f32({2, 4, 16})},
       {{"axis", int64_t{1}}, {"start", int64_t{3}}, {"end", int64_t{4}}},
       {f32({2, 1, 16})}},
      {"rotary_embedding with (1, 1, S, H) tables",
       OpKind::RotaryEmbedding,
       {f32({2, 4, 7, 16}), f32({1, 1, 7, 16}), f32({1, 1, 7, 16})},
       {},
       {f32({2, 4, 7, 16})}},
      {"rotary_embedding with (S, H) tables",
       OpKind::RotaryEmbedding,
       {f32({1, 2, 3, 8}), f32({3, 8}), f32({1, 3, 8})},
       {},
       {f32({1, 2, 3, 8})}},
      {"fused_conv with a (C) bias",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({8})},
       {{"padding", code(Padding::Same)}},
       {f32({1, 8, 6, 6})}},
      {"fused_conv grouped, strided, (1, C, 1, 1) bias and a sum",
       OpKind::FusedConv,
       {f32({2, 4, 7, 7}), f32({4, 1, 3, 3}), f32({1, 4, 1, 1}), f32({2, 4, 3, 3})},
       {{"stride_h", int64_t{2}}, {"stride_w", int64_t{2}}, {"padding", code(Padding::Valid)}},
       {f32({2, 4, 3, 3})}},
      {"fused_conv with ReLU6 (clip 0 6)",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({8})},
       {{"activation", code(Activation::Clip)},
        {"activation_alpha", 0.0},
        {"activation_beta", 6.0}},
       {f32({1, 8, 6, 6})}},
      {"fused_matmul transposed a, batch broadcast",
       OpKind::FusedMatMul,
       {f32({2, 1, 4, 3}), f32({5, 4, 6})},
       {{"trans_a", int64_t{1}}, {"alpha", 0.125}},
       {f32({2, 5, 3, 6})}},
      {"fused_matmul both transposed",
       OpKind::FusedMatMul,
       {f32({4, 3}), f32({6, 4})},
       {{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}},
       {f32({3, 6})}},
      {"opaque two outputs",
       OpKind::Opaque,
       {f32({2, 3}), f32({4})},
       {{"op_type", std::string("TopK")},
        {"output_types", std::string("f32[2 1];f32[1 3 224 224]")}},
       {f32({2, 1}), f32({1, 3, 224, 224})}},
      {"opaque no inputs",
       OpKind::Opaque,
       {},
       {{"op_type", std::string("RandomNormal")}, {"output_types", std::string("f32[]")}},
       {f32({})}},
  };
  return cases;
}

struct ErrorCase {
  std::string label;
  OpKind op;
  std::vector<TensorType> inputs;
  Attributes attrs;
  std::vector<std::string> fragments;  // what the message must mention
};

const std::vector<ErrorCase>& error_cases() {
  static const std::vector<ErrorCase> cases = {
      {"input zero dim",
       OpKind::Input,
       {},
       {{"shape", Dims{2, 0}}},
       {"dimensions must be positive", "[2 0]"}},
      {"weight negative dim",
       OpKind::Weight,
       {},
       {{"shape", Dims{-1}}},
       {"dimensions must be positive", "[-1]"}},
      {"constant unknown dtype",
       OpKind::Constant,
       {},
       {{"shape", Dims{2}}, {"value", 0.0}, {"dtype", "f8"}},
       {"unknown dtype 'f8'"}},
      {"input unknown dtype",
       OpKind::Input,
       {},
       {{"shape", Dims{2}}, {"dtype", "float"}},
       {"unknown dtype 'float'"}},

      {"ewadd equal shapes only",
       OpKind::EwAdd,
       {f32({2, 3}), f32({3})},
       {},
       {"equal shapes", "f32[2 3] and f32[3]"}},
      {"ewmul equal shapes only",
       OpKind::EwMul,
       {f32({3, 2}), f32({3, 1})},
       {},
       {"equal shapes", "f32[3 2] and f32[3 1]"}},
      {"add no broadcast",
       OpKind::Add,
       {f32({2, 3}), f32({4})},
       {},
       {"shapes [2 3] and [4] do not broadcast"}},
      {"mul crossed",
       OpKind::Mul,
       {f32({3, 2}), f32({2, 3})},
       {},
       {"shapes [3 2] and [2 3] do not broadcast"}},
      {"sub dtypes",
       OpKind::Sub,
       {f32({2}), f64({2})},
       {},
       {"element types differ: f32[2] and f64[2]"}},
      {"div no broadcast", OpKind::Div, {f32({5}), f32({4})}, {}, {"[5] and [4]"}},
      {"pow no broadcast", OpKind::Pow, {f32({2, 2}), f32({3})}, {}, {"[2 2] and [3]"}},

      {"matmul rank 1",
       OpKind::MatMul,
       {f32({4}), f32({4, 4})},
       {},
       {"rank >= 2", "f32[4]", "f32[4 4]"}},
      {"matmul inner",
       OpKind::MatMul,
       {f32({8, 16}), f32({15, 32})},
       {},
       {"inner dimensions differ", "f32[8 16] x f32[15 32]"}},
      {"matmul batch",
       OpKind::MatMul,
       {f32({2, 4, 4}), f32({3, 4, 4})},
       {},
       {"matmul batch dimensions do not broadcast: f32[2 4 4] x f32[3 4 4]"}},
      {"matmul dtypes",
       OpKind::MatMul,
       {f32({2, 2}), f64({2, 2})},
       {},
       {"element types differ", "f64[2 2]"}},

      {"conv input rank",
       OpKind::Conv2d,
       {f32({3, 32, 32}), f32({16, 3, 3, 3})},
       {},
       {"conv2d input (NCHW) must have rank 4, got f32[3 32 32]"}},
      {"conv weight rank",
       OpKind::Conv2d,
       {f32({1, 3, 32, 32}), f32({16, 3})},
       {},
       {"conv2d weight (OIHW) must have rank 4, got f32[16 3]"}},
      {"conv channels",
       OpKind::Conv2d,
       {f32({1, 6, 8, 8}), f32({4, 4, 3, 3})},
       {},
       {"input channels 6 are not a multiple of the weight's 4", "f32[1 6 8 8]", "f32[4 4 3 3]"}},
      {"conv groups",
       OpKind::Conv2d,
       {f32({1, 8, 5, 5}), f32({6, 2, 3, 3})},
       {},
       {"output channels 6 are not a multiple of the 4 groups"}},
      {"conv valid too big",
       OpKind::Conv2d,
       {f32({1, 1, 5, 5}), f32({1, 1, 7, 7})},
       {{"padding", code(Padding::Valid)}},
       {"VALID window of size 7 does not fit in 5"}},
      {"conv zero stride",
       OpKind::Conv2d,
       {f32({1, 1, 5, 5}), f32({1, 1, 3, 3})},
       {{"stride_h", int64_t{0}}},
       {"stride must be positive, got 0"}},
      {"conv dtypes",
       OpKind::Conv2d,
       {f64({1, 1, 5, 5}), f32({1, 1, 3, 3})},
       {},
       {"element types differ", "f64[1 1 5 5]", "f32[1 1 3 3]"}},

      {"poolmax rank",
       OpKind::PoolMax,
       {f32({4, 8, 8})},
       window(2, 2, 2, 2, Padding::Valid),
       {"pool input (NCHW) must have rank 4, got f32[4 8 8]"}},
      {"poolavg zero kernel",
       OpKind::PoolAvg,
       {f32({1, 1, 8, 8})},
       window(0, 2, 1, 1, Padding::Same),
       {"kernel size must be positive, got 0"}},
      {"poolmax negative stride",
       OpKind::PoolMax,
       {f32({1, 1, 8, 8})},
       window(2, 2, 1, -1, Padding::Same),
       {"stride must be positive, got -1"}},
      {"poolavg valid too big",
       OpKind::PoolAvg,
       {f32({1, 1, 8, 8})},
       window(9, 2, 1, 1, Padding::Valid),
       {"VALID window of size 9 does not fit in 8"}},

      {"transpose length",
       OpKind::Transpose,
       {f32({2, 3})},
       {{"perm", Dims{0, 1, 2}}},
       {"transpose permutation [0 1 2] does not match rank of f32[2 3]"}},
      {"transpose repeat",
       OpKind::Transpose,
       {f32({2, 3})},
       {{"perm", Dims{0, 0}}},
       {"[0 0] is not a permutation"}},
      {"transpose out of range",
       OpKind::Transpose,
       {f32({2, 3})},
       {{"perm", Dims{0, 2}}},
       {"[0 2] is not a permutation"}},
      {"transpose negative",
       OpKind::Transpose,
       {f32({2, 3})},
       {{"perm", Dims{-1, 0}}},
       {"[-1 0] is not a permutation"}},

      {"enlarge kernel rank",
       OpKind::Enlarge,
       {f32({4, 4}), f32({4, 4, 3, 3})},
       {},
       {"enlarge kernel must have rank 4, got f32[4 4]"}},
      {"enlarge reference rank",
       OpKind::Enlarge,
       {f32({4, 4, 1, 1}), f32({4, 3, 3})},
       {},
       {"enlarge reference kernel must have rank 4, got f32[4 3 3]"}},
      {"enlarge shrink",
       OpKind::Enlarge,
       {f32({4, 4, 5, 5}), f32({4, 4, 3, 3})},
       {},
       {"cannot centre kernel f32[4 4 5 5] in f32[4 4 3 3]"}},
      {"enlarge odd",
       OpKind::Enlarge,
       {f32({4, 4, 3, 2}), f32({4, 4, 3, 3})},
       {},
       {"cannot centre kernel f32[4 4 3 2] in f32[4 4 3 3]"}},

      {"concat other dims",
       OpKind::Concat,
       {f32({2, 3}), f32({3, 3})},
       {{"axis", int64_t{1}}},
       {"concat on axis 1 of f32[2 3] and f32[3 3]: other dimensions differ"}},
      {"concat ranks",
       OpKind::Concat,
       {f32({2, 3}), f32({2, 3, 1})},
       {{"axis", int64_t{0}}},
       {"f32[2 3] and f32[2 3 1]: other dimensions differ"}},
      {"concat axis",
       OpKind::Concat,
       {f32({2, 3}), f32({2, 3})},
       {{"axis", int64_t{2}}},
       {"axis 2 is out of range for rank 2"}},
      {"concat negative axis",
       OpKind::Concat,
       {f32({2, 3})},
       {{"axis", int64_t{-3}}},
       {"axis -3 is out of range for rank 2"}},
      {"concat dtypes",
       OpKind::Concat,
       {f32({2}), f64({2})},
       {{"axis", int64_t{0}}},
       {"element types differ: f32[2] and f64[2]"}},

      {"split sum",
       OpKind::Split,
       {f32({6, 4})},
       {{"axis", int64_t{0}}, {"sizes", Dims{2, 3}}},
       {"split sizes [2 3] do not add up to dimension 0 of f32[6 4]"}},
      {"split zero size",
       OpKind::Split,
       {f32({6, 4})},
       {{"axis", int64_t{0}}, {"sizes", Dims{0, 6}}},
       {"split sizes must be positive, got [0 6]"}},
      {"split no sizes",
       OpKind::Split,
       {f32({6, 4})},
       {{"axis", int64_t{0}}, {"sizes", Dims{}}},
       {"split needs at least one size"}},
      {"split axis",
       OpKind::Split,
       {f32({6, 4})},
       {{"axis", int64_t{2}}, {"sizes", Dims{6}}},
       {"axis 2 is out of range for rank 2"}},

      {"merge divides",
       OpKind::Merge,
       {f32({8, 2, 3, 3})},
       {{"count", int64_t{3}}},
       {"merge count 3 must be positive and divide the output channels of f32[8 2 3 3]"}},
      {"merge zero",
       OpKind::Merge,
       {f32({8, 2, 3, 3})},
       {{"count", int64_t{0}}},
       {"merge count 0", "f32[8 2 3 3]"}},
      {"merge rank",
       OpKind::Merge,
       {f32({8, 2, 3})},
       {{"count", int64_t{2}}},
       {"merge weight must have rank 4, got f32[8 2 3]"}},

      {"reshape count",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{4, 2}}},
       {"cannot reshape f32[2 3] to [4 2]"}},
      {"reshape two -1",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{-1, -1}}},
       {"[-1 -1]", "neither positive nor a single -1"}},
      {"reshape zero",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{0, 6}}},
       {"[0 6]", "neither positive nor a single -1"}},
      {"reshape -2",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{-2, 3}}},
       {"[-2 3]", "neither positive nor a single -1"}},
      {"reshape -1 does not divide",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{-1, 4}}},
       {"cannot reshape f32[2 3] to [-1 4]"}},

      {"batchnorm rank",
       OpKind::BatchNorm,
       {f32({3}), f32({3}), f32({3}), f32({3}), f32({3})},
       {},
       {"batchnorm input must have rank >= 2, got f32[3]"}},
      {"batchnorm parameter",
       OpKind::BatchNorm,
       {f32({2, 3, 4, 4}), f32({3}), f32({3}), f32({4}), f32({3})},
       {},
       {"batchnorm parameters must have shape [3], got f32[4]"}},
      {"batchnorm parameter rank",
       OpKind::BatchNorm,
       {f32({2, 3}), f32({1, 3}), f32({3}), f32({3}), f32({3})},
       {},
       {"must have shape [3], got f32[1 3]"}},
      {"batchnorm dtypes",
       OpKind::BatchNorm,
       {f32({2, 3}), f32({3}), f64({3}), f32({3}), f32({3})},
       {},
       {"element types differ: f32[2 3] and f64[3]"}},

      {"softmax axis",
       OpKind::Softmax,
       {f32({2, 5})},
       {{"axis", int64_t{2}}},
       {"axis 2 is out of range for rank 2"}},
      {"softmax scalar", OpKind::Softmax, {f32({})}, {}, {"axis -1 is out of range for rank 0"}},

      {"layernorm scale",
       OpKind::LayerNorm,
       {f32({2, 3, 4}), f32({3}), f32({4})},
       {},
       {"layernorm scale and bias must have shape [4], got f32[3]"}},
      {"layernorm bias from axis 1",
       OpKind::LayerNorm,
       {f32({2, 3, 4}), f32({3, 4}), f32({4})},
       {{"axis", int64_t{1}}},
       {"must have shape [3 4], got f32[4]"}},
      {"layernorm axis",
       OpKind::LayerNorm,
       {f32({2, 3, 4}), f32({4}), f32({4})},
       {{"axis", int64_t{3}}},
       {"axis 3 is out of range for rank 3"}},
      {"layernorm dtypes",
       OpKind::LayerNorm,
       {f64({2, 4}), f32({4}), f32({4})},
       {},
       {"element types differ: f64[2 4] and f32[4]"}},
      {"skip_layer_norm rank",
       OpKind::SkipLayerNorm,
       {f32({1, 2, 3, 4}), f32({1, 2, 3, 4}), f32({4}), f32({4})},
       {},
       {"skip_layer_norm needs x of rank 2 or 3 (tokens by features), got f32[1 2 3 4]"}},
      {"skip_layer_norm skip broadcast",
       OpKind::SkipLayerNorm,
       {f32({2, 3, 4}), f32({3, 4}), f32({4}), f32({4})},
       {},
       {"skip_layer_norm skip must have x's shape [2 3 4] or [1 3 4], got f32[3 4]"}},
      {"skip_rms_norm scale",
       OpKind::SkipRMSNorm,
       {f32({2, 3, 4}), f32({2, 3, 4}), f32({3})},
       {},
       {"skip_rms_norm scale and bias must have shape [4], got f32[3]"}},
      {"rms_norm scale",
       OpKind::RMSNorm,
       {f32({2, 3, 4}), f32({3})},
       {},
       {"rms_norm scale must have shape [4], got f32[3]"}},
      {"bias_gelu bias along the last axis",
       OpKind::BiasGelu,
       {f32({2, 3, 4}), f32({3})},
       {},
       {"bias_gelu bias must have shape [4], got f32[3]"}},
      {"bias_gelu bias is one-dimensional",
       OpKind::BiasGelu,
       {f32({2, 3, 4}), f32({1, 4})},
       {},
       {"bias_gelu bias must have shape [4], got f32[1 4]"}},
      {"bias_gelu dtypes",
       OpKind::BiasGelu,
       {f64({2, 4}), f32({4})},
       {},
       {"element types differ: f64[2 4] and f32[4]"}},
      {"rms_norm dtypes",
       OpKind::RMSNorm,
       {f64({2, 4}), f32({4})},
       {},
       {"element types differ: f64[2 4] and f32[4]"}},

      {"attention key width",
       OpKind::Attention,
       {f32({4, 8, 16}), f32({4, 15, 10}), f32({4, 10, 6})},
       {},
       {"matmul inner dimensions differ"}},
      {"attention value rows",
       OpKind::Attention,
       {f32({4, 8, 16}), f32({4, 16, 10}), f32({4, 9, 6})},
       {},
       {"matmul inner dimensions differ"}},
      {"attention zero scale",
       OpKind::Attention,
       {f32({8, 16}), f32({16, 10}), f32({10, 6})},
       {{"scale", 0.0}},
       {"attention needs a non-zero scale"}},

      {"multi_head_attention heads",
       OpKind::MultiHeadAttention,
       {f32({2, 5, 8}), f32({2, 5, 8}), f32({2, 5, 8})},
       {{"num_heads", int64_t{3}}, {"scale", 0.5}},
       {"3 heads do not divide"}},
      {"multi_head_attention key width",
       OpKind::MultiHeadAttention,
       {f32({2, 5, 8}), f32({2, 5, 4}), f32({2, 5, 8})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"needs q (B, S, D), k (B, L, D)"}},
      {"multi_head_attention bias",
       OpKind::MultiHeadAttention,
       {f32({2, 5, 8}), f32({2, 5, 8}), f32({2, 5, 8}), f32({2, 1, 3, 5})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"does not broadcast to the scores"}},
      {"qkv_attention weight rows",
       OpKind::QkvAttention,
       {f32({2, 5, 6}), f32({8, 24}), f32({24})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"qkv_attention needs a weight (6, 3 D) for x f32[2 5 6], got f32[8 24]"}},
      {"qkv_attention weight not three parts",
       OpKind::QkvAttention,
       {f32({2, 5, 6}), f32({6, 20}), f32({20})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"needs a weight (6, 3 D)"}},
      {"qkv_attention bias",
       OpKind::QkvAttention,
       {f32({2, 5, 6}), f32({6, 24}), f32({8})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"qkv_attention bias must be (24), got f32[8]"}},
      {"qkv_attention heads",
       OpKind::QkvAttention,
       {f32({2, 5, 6}), f32({6, 24}), f32({24})},
       {{"num_heads", int64_t{3}}, {"scale", 0.5}},
       {"3 heads do not divide"}},
      {"multi_head_attention rank",
       OpKind::MultiHeadAttention,
       {f32({5, 8}), f32({5, 8}), f32({5, 8})},
       {{"num_heads", int64_t{2}}, {"scale", 0.5}},
       {"must have rank 3"}},

      {"reduce_mean repeat",
       OpKind::ReduceMean,
       {f32({2, 3, 4})},
       {{"axes", Dims{1, -2}}},
       {"reduce_mean axes repeat axis 1"}},
      {"reduce_mean no axes",
       OpKind::ReduceMean,
       {f32({2, 3})},
       {{"axes", Dims{}}},
       {"reduce_mean needs at least one axis"}},
      {"reduce_mean keepdims code",
       OpKind::ReduceMean,
       {f32({2, 3})},
       {{"axes", Dims{1}}, {"keepdims", int64_t{-7}}},
       {"keepdims must be 0 or 1, got -7"}},
      {"input too large",
       OpKind::Input,
       {},
       {{"shape", Dims{4294967296, 4294967296}}},
       {"more than 2^40 elements"}},
      {"reshape too large",
       OpKind::Reshape,
       {f32({2, 3})},
       {{"shape", Dims{4294967296, 4294967296, -1}}},
       {"cannot reshape f32[2 3]"}},
      {"reduce_mean axis",
       OpKind::ReduceMean,
       {f32({2, 3, 4})},
       {{"axes", Dims{3}}},
       {"axis 3 is out of range for rank 3"}},

      {"clip min above max",
       OpKind::Clip,
       {f32({3})},
       {{"min", 6.0}, {"max", 0.0}},
       {"clip min 6.0 exceeds max 0.0"}},
      {"pad count",
       OpKind::Pad,
       {f32({2, 3})},
       {{"pads", Dims{1, 1}}},
       {"pad needs 2 x rank = 4 pads for f32[2 3]"}},
      {"pad negative",
       OpKind::Pad,
       {f32({2, 3})},
       {{"pads", Dims{0, -1, 0, 0}}},
       {"pads must be non-negative"}},
      {"slice empty",
       OpKind::Slice,
       {f32({2, 3})},
       {{"axis", int64_t{1}}, {"start", int64_t{2}}, {"end", int64_t{2}}},
       {"slice [2, 2) of axis 1 of f32[2 3] is not a non-empty range inside the axis"}},
      {"slice past the end",
       OpKind::Slice,
       {f32({2, 3})},
       {{"axis", int64_t{0}}, {"start", int64_t{0}}, {"end", int64_t{3}}},
       {"slice [0, 3) of axis 0"}},
      {"slice axis out of range",
       OpKind::Slice,
       {f32({2, 3})},
       {{"axis", int64_t{2}}, {"start", int64_t{0}}, {"end", int64_t{1}}},
       {"axis 2 is out of range for rank 2"}},
      {"rotary_embedding on a 3-d x",
       OpKind::RotaryEmbedding,
       {f32({2, 7, 16}), f32({7, 16}), f32({7, 16})},
       {},
       {"rotary_embedding x must have rank 4"}},
      {"rotary_embedding odd head",
       OpKind::RotaryEmbedding,
       {f32({1, 2, 3, 5}), f32({3, 5}), f32({3, 5})},
       {},
       {"needs an even head size"}},
      {"rotary_embedding table per batch",
       OpKind::RotaryEmbedding,
       {f32({2, 2, 3, 8}), f32({2, 1, 3, 8}), f32({3, 8})},
       {},
       {"rotary_embedding cos must have shape (S, H) = (3, 8) with leading 1s only"}},
      {"rotary_embedding table of other positions",
       OpKind::RotaryEmbedding,
       {f32({1, 2, 3, 8}), f32({3, 8}), f32({4, 8})},
       {},
       {"rotary_embedding sin must have shape (S, H) = (3, 8)"}},
      {"fused_conv bias per row",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({8, 1})},
       {},
       {"fused_conv bias must hold one value per output channel, shaped (8), (8, 1, 1) or (1, 8, "
        "1, 1), got f32[8 1]"}},
      {"fused_conv clip min above max",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({8})},
       {{"activation", code(Activation::Clip)},
        {"activation_alpha", 6.0},
        {"activation_beta", 0.0}},
       {"fused_conv's clip min 6.0 exceeds its max 0.0"}},
      {"fused_conv bias of the input's channels",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({4, 1, 1})},
       {},
       {"fused_conv bias must hold one value per output channel"}},
      {"fused_conv sum of another shape",
       OpKind::FusedConv,
       {f32({1, 4, 6, 6}), f32({8, 4, 3, 3}), f32({8}), f32({1, 8, 4, 4})},
       {{"padding", code(Padding::Same)}},
       {"fused_conv sum must have the output's shape f32[1 8 6 6], got f32[1 8 4 4]"}},
      {"fused_conv input channels",
       OpKind::FusedConv,
       {f32({1, 5, 6, 6}), f32({8, 4, 3, 3}), f32({8})},
       {},
       {"conv2d input channels 5 are not a multiple of the weight's 4"}},
      {"fused_matmul inner dimensions of the transposed operand",
       OpKind::FusedMatMul,
       {f32({3, 4}), f32({5, 4})},
       {},
       {"fused_matmul inner dimensions differ: f32[3 4] x f32[5 4]"}},
      {"fused_matmul transposed b of the wrong size",
       OpKind::FusedMatMul,
       {f32({3, 4}), f32({4, 5})},
       {{"trans_b", int64_t{1}}},
       {"fused_matmul inner dimensions differ: f32[3 4] x f32[4 5] transposed"}},
      {"fused_matmul trans flag",
       OpKind::FusedMatMul,
       {f32({3, 4}), f32({4, 5})},
       {{"trans_a", int64_t{2}}},
       {"fused_matmul trans_a must be 0 or 1, got 2"}},
      {"fused_matmul vector",
       OpKind::FusedMatMul,
       {f32({4}), f32({4, 5})},
       {},
       {"fused_matmul needs operands of rank >= 2"}},
      // Sizes near int64's limit: a clear error, never an overflow (UBSan) or a wrong shape.
      {"conv huge stride",
       OpKind::Conv2d,
       {f32({1, 1, 5, 5}), f32({1, 1, 3, 3})},
       {{"stride_h", std::numeric_limits<int64_t>::max()}, {"padding", code(Padding::Same)}},
       {"stride must be at most 2^40, got 9223372036854775807"}},
      {"poolmax huge kernel",
       OpKind::PoolMax,
       {f32({1, 1, 5, 5})},
       window(std::numeric_limits<int64_t>::max(), 2, 1, 1, Padding::Same),
       {"kernel size must be at most 2^40"}},
      {"pad huge",
       OpKind::Pad,
       {f32({2, 3})},
       {{"pads",
         Dims{0, std::numeric_limits<int64_t>::max(), 0, std::numeric_limits<int64_t>::max()}}},
       {"pad must be at most 2^40, got 9223372036854775807"}},
      {"pad past 2^40 elements",
       OpKind::Pad,
       {f32({2, 3})},
       {{"pads", Dims{0, int64_t{1} << 40, 0, 0}}},
       {"more than 2^40 elements"}},
      {"concat sum past 2^40",
       OpKind::Concat,
       {f32({int64_t{1} << 39, 2}), f32({int64_t{1} << 39, 2})},
       {{"axis", int64_t{0}}},
       {"more than 2^40 elements"}},
      {"split size larger than the axis",
       OpKind::Split,
       {f32({4})},
       {{"axis", int64_t{0}},
        {"sizes", Dims{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()}}},
       {"split size 9223372036854775807", "is larger than dimension 0 of f32[4]"}},
      {"matmul result past 2^40",
       OpKind::MatMul,
       {f32({int64_t{1} << 30, 4}), f32({4, int64_t{1} << 30})},
       {},
       {"would give f32[1073741824 1073741824]", "more than 2^40 elements"}},
      {"opaque output types",
       OpKind::Opaque,
       {f32({2})},
       {{"op_type", std::string("Foo")}, {"output_types", std::string("f32[2 1.5]")}},
       {"opaque output_types", "is not a type like"}},
  };
  return cases;
}

// Operators whose output is their first input's type: nothing but arity and attributes can fail.
bool cannot_fail_on_shapes(OpKind op) {
  switch (op) {
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Sqrt:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Gelu:
    case OpKind::FastGelu:
    case OpKind::QuickGelu:
    case OpKind::LeakyRelu:
    case OpKind::HardSigmoid:
    case OpKind::Noop:
      return true;
    default:
      return false;
  }
}

// A value of the given kind that passes the signature check.
AttrValue sample_value(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
    case AttrKind::Activation:
    case AttrKind::Padding:
      return int64_t{0};
    case AttrKind::Ints:
      return Dims{1};
    case AttrKind::Float:
      return 0.5;
    case AttrKind::String:
      return std::string("f32");
  }
  return int64_t{0};
}

// A value of some other storage type than the kind uses.
AttrValue wrong_value(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
    case AttrKind::Activation:
    case AttrKind::Padding:
      return 1.5;
    case AttrKind::Ints:
    case AttrKind::Float:  // an integer is not a float: the text form writes floats with a '.'
    case AttrKind::String:
      return int64_t{1};
  }
  return int64_t{1};
}

// As many inputs as the operator needs; shapes do not matter to the signature checks, which run
// before shape inference.
std::vector<TensorType> some_inputs(const OpInfo& info) {
  return std::vector<TensorType>(static_cast<size_t>(info.min_inputs), f32({2}));
}

Attributes required_attributes(const OpInfo& info) {
  Attributes attrs;
  for (const auto& spec : info.attributes) {
    if (!spec.default_value) attrs.set(spec.name, sample_value(spec.kind));
  }
  return attrs;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The registry.

TEST(OpRegistry, EveryKindHasItsEntry) {
  ASSERT_EQ(all_ops().size(), static_cast<size_t>(kNumOpKinds));
  for (int k = 0; k < kNumOpKinds; ++k) {
    const OpInfo& info = op_info(kind_at(k));
    EXPECT_EQ(info.kind, kind_at(k)) << "entry " << k << " (" << info.name << ")";
    EXPECT_EQ(all_ops()[static_cast<size_t>(k)].kind, kind_at(k));
    EXPECT_FALSE(info.name.empty()) << "entry " << k;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_TRUE(static_cast<bool>(info.infer)) << info.name;
  }
}

TEST(OpRegistry, NamesAreUniqueAndFindOpRoundTrips) {
  std::set<std::string> names;
  for (int k = 0; k < kNumOpKinds; ++k) {
    const std::string& name = op_info(kind_at(k)).name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    ASSERT_TRUE(find_op(name).has_value()) << name;
    EXPECT_EQ(*find_op(name), kind_at(k)) << name;
    EXPECT_EQ(to_string(kind_at(k)), name);
  }
  EXPECT_FALSE(find_op("").has_value());
  EXPECT_FALSE(find_op("conv").has_value());
  EXPECT_FALSE(find_op("Conv2d").has_value());  // names are case-sensitive
  EXPECT_FALSE(find_op("matmul ").has_value());
}

TEST(OpRegistry, SignaturesAreConsistent) {
  for (const OpInfo& info : all_ops()) {
    EXPECT_GE(info.min_inputs, 0) << info.name;
    if (info.max_inputs == OpInfo::kVariadic) {
      EXPECT_GE(info.input_names.size(), 1u) << info.name;
    } else {
      EXPECT_GE(info.max_inputs, info.min_inputs) << info.name;
      EXPECT_EQ(info.input_names.size(), static_cast<size_t>(info.max_inputs)) << info.name;
    }
    // Leaves are exactly the operators without inputs.
    EXPECT_EQ(info.is_leaf(), info.max_inputs == 0) << info.name;
    std::set<std::string> attribute_names;
    for (const auto& spec : info.attributes) {
      EXPECT_TRUE(attribute_names.insert(spec.name).second) << info.name << "." << spec.name;
      EXPECT_EQ(info.find_attribute(spec.name), &spec) << info.name << "." << spec.name;
      if (spec.default_value) {
        EXPECT_TRUE(holds_kind(*spec.default_value, spec.kind)) << info.name << "." << spec.name;
      }
    }
    EXPECT_EQ(info.find_attribute("no_such_attribute"), nullptr);
  }
}

// Export writes an operator with a one-node ONNX mapping as that node on the same inputs and
// drops nothing else: such an operator has no attributes, and its arity is fixed.
TEST(OpRegistry, OneNodeOnnxOperatorsHaveNoAttributes) {
  int mapped = 0;
  for (const OpInfo& info : all_ops()) {
    const OnnxOperator& onnx = onnx_operator(info.kind);
    if (onnx.empty()) continue;
    ++mapped;
    EXPECT_TRUE(info.attributes.empty()) << info.name;
    EXPECT_EQ(info.min_inputs, info.max_inputs) << info.name;
    EXPECT_TRUE(onnx.domain.empty() || onnx.domain == "com.microsoft") << info.name;
  }
  EXPECT_GE(mapped, 13);
  EXPECT_EQ(onnx_operator(OpKind::EwAdd).op_type, "Add");
  EXPECT_EQ(onnx_operator(OpKind::BiasGelu).domain, "com.microsoft");
  EXPECT_TRUE(onnx_operator(OpKind::Conv2d).empty());  // padding and strides are translated
}

TEST(OpRegistry, CategoriesTheCostModelRelyOn) {
  std::set<OpKind> leaves, contractions;
  for (const OpInfo& info : all_ops()) {
    if (info.category == OpCategory::Leaf) leaves.insert(info.kind);
    if (info.category == OpCategory::Contraction) contractions.insert(info.kind);
  }
  EXPECT_EQ(leaves, (std::set<OpKind>{OpKind::Input, OpKind::Weight, OpKind::Constant}));
  EXPECT_EQ(contractions, (std::set<OpKind>{OpKind::MatMul, OpKind::FusedMatMul, OpKind::Conv2d,
                                            OpKind::FusedConv, OpKind::Attention,
                                            OpKind::MultiHeadAttention, OpKind::QkvAttention}));
}

// ---------------------------------------------------------------------------------------------
// Shape inference, valid and invalid.

TEST(ShapeInference, ValidCases) {
  for (const auto& c : valid_cases()) {
    try {
      auto outputs = infer_types(c.op, c.inputs, c.attrs);
      ASSERT_EQ(outputs.size(), c.expected.size()) << c.label;
      for (size_t i = 0; i < outputs.size(); ++i) {
        EXPECT_EQ(outputs[i], c.expected[i])
            << c.label << " output " << i << ": got " << to_string(outputs[i]) << ", expected "
            << to_string(c.expected[i]);
      }
    } catch (const saturate::Error& error) {
      ADD_FAILURE() << c.label << ": " << error.what();
    }
  }
}

TEST(ShapeInference, EveryOperatorHasValidCases) {
  std::set<OpKind> covered;
  for (const auto& c : valid_cases()) covered.insert(c.op);
  for (int k = 0; k < kNumOpKinds; ++k) {
    EXPECT_TRUE(covered.contains(kind_at(k))) << "no valid case for " << to_string(kind_at(k));
  }
}

TEST(ShapeInference, ErrorCasesNameTheShapes) {
  for (const auto& c : error_cases()) {
    expect_mentions(error_of(c.op, c.inputs, c.attrs), c.fragments, c.label);
  }
}

TEST(ShapeInference, EveryOperatorWithAShapeRuleHasErrorCases) {
  std::set<OpKind> covered;
  for (const auto& c : error_cases()) covered.insert(c.op);
  for (int k = 0; k < kNumOpKinds; ++k) {
    if (cannot_fail_on_shapes(kind_at(k))) continue;
    EXPECT_TRUE(covered.contains(kind_at(k))) << "no error case for " << to_string(kind_at(k));
  }
}

TEST(ShapeInference, GraphErrorsNameTheNode) {
  Graph g("bad");
  ValueRef x = g.add_input("x", {2, 3});
  try {
    g.add_node(OpKind::Reshape, {x}, {{"shape", Dims{4, 2}}}, {"r"});
    FAIL() << "expected a shape error";
  } catch (const saturate::Error& error) {
    expect_mentions(error.what(), {"node 'r' (reshape)", "cannot reshape f32[2 3] to [4 2]"},
                    "graph");
  }
}

// ---------------------------------------------------------------------------------------------
// Signature checks, for every operator.

TEST(Signatures, WrongArityIsRejected) {
  for (const OpInfo& info : all_ops()) {
    std::vector<int> counts;
    if (info.min_inputs > 0) counts.push_back(info.min_inputs - 1);
    if (info.max_inputs != OpInfo::kVariadic) counts.push_back(info.max_inputs + 1);
    for (int count : counts) {
      std::vector<TensorType> inputs(static_cast<size_t>(count), f32({2}));
      std::string message = error_of(info.kind, inputs, required_attributes(info));
      expect_mentions(message,
                      {"operator '" + info.name + "' takes", "got " + std::to_string(count)},
                      info.name + " with " + std::to_string(count) + " inputs");
    }
  }
  // The message says how many are allowed.
  expect_mentions(error_of(OpKind::Concat, {}, {{"axis", int64_t{0}}}), {"takes 1 or more inputs"},
                  "concat");
  expect_mentions(error_of(OpKind::BatchNorm, {f32({2, 3})}, {}), {"takes 5 inputs, got 1"},
                  "batchnorm");
}

TEST(Signatures, UnknownAttributeIsRejected) {
  for (const OpInfo& info : all_ops()) {
    Attributes attrs = required_attributes(info);
    attrs.set("bogus", int64_t{1});
    expect_mentions(error_of(info.kind, some_inputs(info), attrs),
                    {"operator '" + info.name + "' has no attribute 'bogus'"}, info.name);
  }
  // An attribute of another operator is just as unknown.
  expect_mentions(error_of(OpKind::Relu, {f32({2})}, {{"activation", int64_t{0}}}),
                  {"'relu' has no attribute 'activation'"}, "relu");
}

TEST(Signatures, MissingRequiredAttributeIsRejected) {
  int checked = 0;
  for (const OpInfo& info : all_ops()) {
    for (const auto& spec : info.attributes) {
      if (spec.default_value) continue;
      Attributes attrs;
      for (const auto& other : info.attributes) {
        if (!other.default_value && other.name != spec.name) {
          attrs.set(other.name, sample_value(other.kind));
        }
      }
      expect_mentions(error_of(info.kind, some_inputs(info), attrs),
                      {"operator '" + info.name + "' needs attribute '" + spec.name + "'",
                       std::string(to_string(spec.kind))},
                      info.name + "." + spec.name);
      ++checked;
    }
  }
  // Today 17: shape of the three leaves, value, kernel_h/kernel_w of both pools, perm, concat's
  // axis, split's axis and sizes, count, reshape's shape, clip's min and max, axes.
  EXPECT_GE(checked, 17);
}

TEST(Signatures, WrongAttributeKindIsRejected) {
  for (const OpInfo& info : all_ops()) {
    for (const auto& spec : info.attributes) {
      Attributes attrs = required_attributes(info);
      attrs.set(spec.name, wrong_value(spec.kind));
      expect_mentions(error_of(info.kind, some_inputs(info), attrs),
                      {"attribute '" + spec.name + "' of '" + info.name + "' must be " +
                       std::string(to_string(spec.kind))},
                      info.name + "." + spec.name);
    }
  }
}

TEST(Signatures, EnumerationCodesAreRangeChecked) {
  int checked = 0;
  for (const OpInfo& info : all_ops()) {
    for (const auto& spec : info.attributes) {
      std::vector<std::pair<int64_t, std::string>> bad;
      if (spec.kind == AttrKind::Activation) {
        bad = {{-1, "activation code -1 is not 0..6"}, {7, "activation code 7 is not 0..6"}};
        // The activations with parameters are fused_conv's only.
        if (info.kind != OpKind::FusedConv) {
          bad.emplace_back(4, "fuses none, sigmoid, relu or tanh, not clip");
        }
      } else if (spec.kind == AttrKind::Padding) {
        bad = {{-1, "padding code -1 is not 0..1"}, {2, "padding code 2 is not 0..1"}};
      }
      for (const auto& [value, expected] : bad) {
        Attributes attrs = required_attributes(info);
        attrs.set(spec.name, value);
        expect_mentions(error_of(info.kind, some_inputs(info), attrs), {expected},
                        info.name + "." + spec.name);
        ++checked;
      }
    }
  }
  // activation on matmul, conv2d, fused_conv, poolmax, poolavg (and clip on all but fused_conv);
  // padding on conv2d, fused_conv and both pools.
  EXPECT_EQ(checked, 2 * (5 + 4) + 4);
}

TEST(Signatures, DefaultsAreFilledIn) {
  Attributes conv = complete_attributes(op_info(OpKind::Conv2d), {});
  EXPECT_EQ(conv.get_int("stride_h"), 1);
  EXPECT_EQ(conv.get_int("stride_w"), 1);
  EXPECT_EQ(conv.get_padding(), Padding::Same);
  EXPECT_EQ(conv.get_activation(), Activation::None);
  Attributes input = complete_attributes(op_info(OpKind::Input), {{"shape", Dims{2}}});
  EXPECT_EQ(input.get_string("dtype"), "f32");
  Attributes reduce = complete_attributes(op_info(OpKind::ReduceMean), {{"axes", Dims{0}}});
  EXPECT_EQ(reduce.get_int("keepdims"), 1);
  Attributes softmax = complete_attributes(op_info(OpKind::Softmax), {});
  EXPECT_EQ(softmax.get_int("axis"), -1);
  // A given value wins over the default.
  EXPECT_EQ(complete_attributes(op_info(OpKind::Softmax), {{"axis", int64_t{0}}}).get_int("axis"),
            0);
}
