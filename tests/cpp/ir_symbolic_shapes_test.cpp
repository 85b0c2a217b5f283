// Shape inference over symbolic dimensions: every condition is proved on the normal form for
// every value of the symbols, or the node is refused.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "ir/graph_builder.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "ir/text_format.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::ir;

namespace {

int64_t dim(const char* text) {
  auto parsed = parse_dim(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(0);
}

TensorType f32(Dims dims) {
  return TensorType{DType::F32, std::move(dims)};
}

std::vector<TensorType> infer(OpKind op, const std::vector<TensorType>& inputs,
                              const Attributes& attrs = {}) {
  return infer_types(op, inputs, attrs);
}

TensorType infer_one(OpKind op, const std::vector<TensorType>& inputs,
                     const Attributes& attrs = {}) {
  auto out = infer(op, inputs, attrs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

class SymbolicShapes : public ::testing::Test {
 protected:
  void SetUp() override {
    set_symbol_lower_bound(symbol_named("past_sequence_length"), 0);
    batch = dim("batch");
    sequence = dim("sequence");
    past = dim("past_sequence_length");
  }

  int64_t batch = 0;
  int64_t sequence = 0;
  int64_t past = 0;
};

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

}  // namespace

TEST_F(SymbolicShapes, ElementwiseAndBroadcast) {
  const TensorType x = f32({batch, sequence, 768});
  EXPECT_EQ(infer_one(OpKind::Add, {x, f32({768})}), x);
  EXPECT_EQ(infer_one(OpKind::Add, {x, f32({batch, 1, 768})}), x);
  EXPECT_EQ(infer_one(OpKind::Mul, {f32({1, sequence, 768}), f32({batch, 1, 1})}), x);
  EXPECT_EQ(infer_one(OpKind::Sub, {x, x}), x);
  EXPECT_EQ(infer_one(OpKind::EwAdd, {x, x}), x);
  EXPECT_EQ(infer_one(OpKind::Relu, {x}), x);
  EXPECT_EQ(infer_one(OpKind::Gelu, {x}), x);
  EXPECT_EQ(infer_one(OpKind::Clip, {x}, {{"min", 0.0}, {"max", 6.0}}), x);
  // Equal expressions are equal dims, whichever way they were written.
  EXPECT_EQ(infer_one(OpKind::Add, {f32({dim("batch*sequence")}), f32({dim("sequence*batch")})}),
            f32({dim("batch*sequence")}));
}

TEST_F(SymbolicShapes, DifferentSymbolsDoNotBroadcast) {
  // batch and sequence broadcast only where one of them is 1: not provable, refused.
  EXPECT_THROW(infer(OpKind::Add, {f32({batch, 768}), f32({sequence, 768})}), Error);
  // A symbol against a size other than 1 neither.
  EXPECT_THROW(infer(OpKind::Add, {f32({batch, 768}), f32({4, 768})}), Error);
  EXPECT_THROW(infer(OpKind::Mul, {f32({4, 768}), f32({batch, 768})}), Error);
  EXPECT_THROW(infer(OpKind::EwAdd, {f32({batch}), f32({sequence})}), Error);
  // Nor do two symbolic matmul batch axes.
  EXPECT_THROW(infer(OpKind::MatMul, {f32({batch, 4, 8}), f32({sequence, 8, 2})}), Error);
}

TEST_F(SymbolicShapes, MatMul) {
  EXPECT_EQ(infer_one(OpKind::MatMul, {f32({batch, sequence, 64}), f32({64, 32})}),
            f32({batch, sequence, 32}));
  // Scores: q (B, S, 64) by k transposed (B, 64, S).
  EXPECT_EQ(infer_one(OpKind::MatMul, {f32({batch, sequence, 64}), f32({batch, 64, sequence})}),
            f32({batch, sequence, sequence}));
  // A symbolic inner dimension must be the same dim on both sides.
  EXPECT_THROW(infer(OpKind::MatMul, {f32({batch, sequence}), f32({batch, 4})}), Error);
  EXPECT_THROW(infer(OpKind::MatMul, {f32({4, sequence}), f32({past, 4})}), Error);
  EXPECT_EQ(infer_one(OpKind::FusedMatMul, {f32({batch, sequence, 64}), f32({32, 64})},
                      {{"trans_b", int64_t{1}}}),
            f32({batch, sequence, 32}));
}

TEST_F(SymbolicShapes, Reshape) {
  const TensorType x = f32({batch, sequence, 768});
  const int64_t tokens = dim("batch*sequence");
  EXPECT_EQ(infer_one(OpKind::Reshape, {x}, {{"shape", Dims{tokens, 768}}}), f32({tokens, 768}));
  EXPECT_EQ(infer_one(OpKind::Reshape, {x}, {{"shape", Dims{-1, 768}}}), f32({tokens, 768}));
  EXPECT_EQ(infer_one(OpKind::Reshape, {x}, {{"shape", Dims{batch, sequence, 12, 64}}}),
            f32({batch, sequence, 12, 64}));
  EXPECT_EQ(infer_one(OpKind::Reshape, {x}, {{"shape", Dims{batch, -1, 64}}}),
            f32({batch, dim("12*sequence"), 64}));
  EXPECT_EQ(infer_one(OpKind::Reshape, {x}, {{"shape", Dims{-1}}}),
            f32({dim("768*batch*sequence")}));
  // And back from the flat view.
  EXPECT_EQ(infer_one(OpKind::Reshape, {f32({tokens, 768})}, {{"shape", Dims{batch, -1, 768}}}), x);
  EXPECT_EQ(
      infer_one(OpKind::Reshape, {f32({tokens, 768})}, {{"shape", Dims{batch, sequence, 768}}}), x);
}

TEST_F(SymbolicShapes, ReshapeWhoseCountIsNotProvablyEqualIsRefused) {
  const TensorType x = f32({batch, sequence, 768});
  // Equal only where batch == sequence.
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{sequence, sequence, 768}}}), Error);
  // A fixed size cannot hold a symbolic count.
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{4, 768}}}), Error);
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{batch, 768}}}), Error);
  // -1 must be an exact quotient for every value: 768 * batch * sequence / 7 is not.
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{-1, 7}}}), Error);
  // batch*sequence / past is no polynomial.
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{past, -1}}}), Error);
  // 0 (ONNX's "copy") is not taken, nor two -1.
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{0, sequence, 768}}}), Error);
  EXPECT_THROW(infer(OpKind::Reshape, {x}, {{"shape", Dims{-1, -1, 768}}}), Error);
}

TEST_F(SymbolicShapes, ConcatSumsTheAxis) {
  const TensorType cache = f32({batch, past, 64});
  const TensorType step = f32({batch, sequence, 64});
  EXPECT_EQ(infer_one(OpKind::Concat, {cache, step}, {{"axis", int64_t{1}}}),
            f32({batch, dim("past_sequence_length + sequence"), 64}));
  EXPECT_EQ(infer_one(OpKind::Concat, {step, step, f32({batch, 2, 64})}, {{"axis", int64_t{-2}}}),
            f32({batch, dim("2*sequence + 2"), 64}));
  // The other dims must be the same dims.
  EXPECT_THROW(
      infer(OpKind::Concat, {cache, f32({sequence, sequence, 64})}, {{"axis", int64_t{1}}}), Error);
}

TEST_F(SymbolicShapes, SplitOnASymbolicAxisIsRefused) {
  const TensorType x = f32({batch, sequence, 768});
  EXPECT_THROW(infer(OpKind::Split, {x}, {{"axis", int64_t{1}}, {"sizes", Dims{1, 1}}}), Error);
  auto parts = infer(OpKind::Split, {x}, {{"axis", int64_t{2}}, {"sizes", Dims{256, 512}}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], f32({batch, sequence, 256}));
  EXPECT_EQ(parts[1], f32({batch, sequence, 512}));
}

TEST_F(SymbolicShapes, TransposeSoftmaxAndNormalizations) {
  const TensorType x = f32({batch, sequence, 12, 64});
  EXPECT_EQ(infer_one(OpKind::Transpose, {x}, {{"perm", Dims{0, 2, 1, 3}}}),
            f32({batch, 12, sequence, 64}));
  const TensorType scores = f32({batch, 12, sequence, sequence});
  EXPECT_EQ(infer_one(OpKind::Softmax, {scores}), scores);
  const TensorType hidden = f32({batch, sequence, 768});
  EXPECT_EQ(infer_one(OpKind::LayerNorm, {hidden, f32({768}), f32({768})}), hidden);
  EXPECT_EQ(infer_one(OpKind::RMSNorm, {hidden, f32({768})}), hidden);
  EXPECT_EQ(infer(OpKind::SkipLayerNorm, {hidden, hidden, f32({768}), f32({768})}).size(), 2u);
  EXPECT_EQ(infer_one(OpKind::ReduceMean, {hidden}, {{"axes", Dims{-1}}}),
            f32({batch, sequence, 1}));
  EXPECT_EQ(infer_one(OpKind::BiasGelu, {hidden, f32({768})}), hidden);
  // Normalizing over a symbolic axis needs parameters of exactly that dim.
  EXPECT_THROW(infer(OpKind::LayerNorm, {f32({batch, sequence}), f32({4}), f32({4})}), Error);

  GraphBuilder builder("norms");
  ValueRef in = builder.input("x", {batch, sequence, 768});
  ValueRef normed = builder.layernorm(in);
  ValueRef probs = builder.softmax(normed, -1);
  EXPECT_EQ(builder.dims(probs), (Dims{batch, sequence, 768}));
  ValueRef image = builder.input("image", {batch, 8, 4, 4});
  EXPECT_EQ(builder.dims(builder.batchnorm(image)), (Dims{batch, 8, 4, 4}));
}

TEST_F(SymbolicShapes, MultiHeadAttention) {
  const TensorType q = f32({batch, sequence, 768});
  const Attributes heads{{"num_heads", int64_t{12}}, {"scale", 0.125}};
  EXPECT_EQ(infer_one(OpKind::MultiHeadAttention, {q, q, q}, heads), q);
  // Keys over the cache and the step, with a padding mask broadcasting over heads and queries.
  const int64_t total = dim("past_sequence_length + sequence");
  const TensorType kv = f32({batch, total, 768});
  EXPECT_EQ(infer_one(OpKind::MultiHeadAttention, {q, kv, kv, f32({batch, 1, 1, total})}, heads),
            q);
  // Keys and values given as heads (B, N, L, H).
  const TensorType split = f32({batch, 12, total, 64});
  EXPECT_EQ(infer_one(OpKind::MultiHeadAttention, {q, split, split}, heads), q);
  // A mask over different keys, a batch that differs, heads that do not divide: refused.
  EXPECT_THROW(infer(OpKind::MultiHeadAttention, {q, kv, kv, f32({batch, 1, 1, sequence})}, heads),
               Error);
  EXPECT_THROW(infer(OpKind::MultiHeadAttention, {q, f32({sequence, sequence, 768}), q}, heads),
               Error);
  EXPECT_THROW(
      infer(OpKind::MultiHeadAttention, {q, q, q}, {{"num_heads", int64_t{7}}, {"scale", 0.125}}),
      Error);
  // A symbolic hidden width splits into heads only where the division is exact.
  const TensorType wide = f32({batch, sequence, dim("12*width")});
  EXPECT_EQ(infer_one(OpKind::MultiHeadAttention, {wide, wide, wide}, heads), wide);
  const TensorType odd = f32({batch, sequence, dim("width")});
  EXPECT_THROW(infer(OpKind::MultiHeadAttention, {odd, odd, odd}, heads), Error);

  EXPECT_EQ(infer_one(OpKind::QkvAttention, {q, f32({768, 2304}), f32({2304})}, heads), q);
  EXPECT_EQ(infer_one(OpKind::Attention,
                      {f32({batch, sequence, 64}), f32({batch, 64, sequence}),
                       f32({batch, sequence, 32})},
                      {{"scale", 8.0}}),
            f32({batch, sequence, 32}));
}

TEST_F(SymbolicShapes, RotaryEmbedding) {
  const TensorType x = f32({batch, 12, sequence, 64});
  EXPECT_EQ(infer_one(OpKind::RotaryEmbedding, {x, f32({sequence, 64}), f32({1, sequence, 64})}),
            x);
  EXPECT_THROW(infer(OpKind::RotaryEmbedding, {x, f32({past, 64}), f32({past, 64})}), Error);
  const TensorType odd_head = f32({batch, 12, sequence, dim("head")});
  EXPECT_THROW(infer(OpKind::RotaryEmbedding,
                     {odd_head, f32({sequence, dim("head")}), f32({sequence, dim("head")})}),
               Error);
}

TEST_F(SymbolicShapes, SliceOfASymbolicAxis) {
  const TensorType x = f32({batch, sequence, 64});
  auto sliced = [&](int64_t axis, int64_t start, int64_t end) {
    return infer_one(OpKind::Slice, {x}, {{"axis", axis}, {"start", start}, {"end", end}});
  };
  // To the end: the rest of the axis.
  EXPECT_EQ(sliced(1, 0, kToEnd), x);
  EXPECT_EQ(sliced(1, 1, kToEnd), f32({batch, dim("sequence - 1"), 64}));
  // A fixed part within the axis's least value (1).
  EXPECT_EQ(sliced(1, 0, 1), f32({batch, 1, 64}));
  // ONNX clamps where the bounds may pass the axis: undecidable, refused.
  auto slice_throws = [&](const TensorType& in, int64_t start, int64_t end) {
    EXPECT_THROW(infer(OpKind::Slice, {in}, {{"axis", int64_t{1}}, {"start", start}, {"end", end}}),
                 Error)
        << start << ", " << end;
  };
  slice_throws(x, 0, 2);
  slice_throws(x, 2, kToEnd);
  slice_throws(x, -1, kToEnd);
  slice_throws(x, 1, 1);
  // A cache may be empty (lower bound 0): only the whole of it is provable.
  const TensorType cache = f32({batch, past, 64});
  EXPECT_EQ(infer_one(OpKind::Slice, {cache},
                      {{"axis", int64_t{1}}, {"start", int64_t{0}}, {"end", kToEnd}}),
            cache);
  slice_throws(cache, 1, kToEnd);
  slice_throws(cache, 0, 1);
  // On a sized axis the importer clamps; the sentinel is not taken there.
  EXPECT_THROW(
      infer(OpKind::Slice, {x}, {{"axis", int64_t{2}}, {"start", int64_t{0}}, {"end", kToEnd}}),
      Error);
  EXPECT_EQ(sliced(2, 16, 48), f32({batch, sequence, 32}));
}

TEST_F(SymbolicShapes, ConvolutionAndPooling) {
  GraphBuilder builder("conv");
  ValueRef image = builder.input("image", {batch, 3, 32, 32});
  ValueRef y = builder.conv(image, 16, 3, 3, 2, Padding::Same, Activation::Relu);
  EXPECT_EQ(builder.dims(y), (Dims{batch, 16, 16, 16}));
  ValueRef pooled = builder.poolmax(y, 2, 2, 2, 2, Padding::Valid);
  EXPECT_EQ(builder.dims(pooled), (Dims{batch, 16, 8, 8}));
  ValueRef w = builder.weight({16, 3, 3, 3});
  EXPECT_EQ(builder.dims(builder.conv2d(image, w, 1, 1, Padding::Valid)),
            (Dims{batch, 16, 30, 30}));

  const TensorType weight = f32({16, 3, 3, 3});
  const TensorType bias = f32({16});
  EXPECT_EQ(infer_one(OpKind::FusedConv, {f32({batch, 3, 8, 8}), weight, bias}),
            f32({batch, 16, 8, 8}));

  // A symbolic spatial size: SAME stride 1 keeps it; a stride must provably divide it; a VALID
  // window must fit its least value.
  const int64_t height = dim("height");
  auto conv = [&](const TensorType& x, int64_t stride, Padding padding) {
    return infer(OpKind::Conv2d, {x, weight},
                 {{"stride_h", stride},
                  {"stride_w", int64_t{1}},
                  {"padding", static_cast<int64_t>(padding)}});
  };
  EXPECT_EQ(conv(f32({batch, 3, height, 8}), 1, Padding::Same).at(0), f32({batch, 16, height, 8}));
  EXPECT_THROW(conv(f32({batch, 3, height, 8}), 2, Padding::Same), Error);
  EXPECT_EQ(conv(f32({batch, 3, dim("2*height"), 8}), 2, Padding::Same).at(0),
            f32({batch, 16, height, 8}));
  EXPECT_THROW(conv(f32({batch, 3, height, 8}), 1, Padding::Valid), Error);
  EXPECT_EQ(conv(f32({batch, 3, dim("height + 2"), 8}), 1, Padding::Valid).at(0),
            f32({batch, 16, height, 6}));
  EXPECT_EQ(conv(f32({batch, 3, dim("2*height + 1"), 8}), 2, Padding::Valid).at(0),
            f32({batch, 16, height, 6}));
  EXPECT_THROW(conv(f32({batch, 3, dim("2*height + 2"), 8}), 2, Padding::Valid), Error);
  // Channels must give a known group count.
  EXPECT_THROW(infer(OpKind::Conv2d, {f32({batch, dim("channels"), 8, 8}), weight}), Error);
}

TEST_F(SymbolicShapes, PadAddsToASymbolicDim) {
  EXPECT_EQ(infer_one(OpKind::Pad, {f32({batch, sequence})}, {{"pads", Dims{0, 1, 0, 2}}}),
            f32({batch, dim("sequence + 3")}));
}

TEST_F(SymbolicShapes, LeavesOnlyInputsTakeSymbolicShapes) {
  Graph graph("leaves");
  EXPECT_NO_THROW(graph.add_input("x", {batch, sequence, 768}));
  EXPECT_THROW(graph.add_weight("w", {sequence, 768}), Error);
  EXPECT_THROW(infer(OpKind::Constant, {}, {{"shape", Dims{batch}}, {"value", 1.0}}), Error);
  // A difference that may be negative is no dimension.
  EXPECT_THROW(graph.add_input("y", {dim("past_sequence_length - sequence")}), Error);
  // A cache length of lower bound 0 is one.
  EXPECT_NO_THROW(graph.add_input("cache", {batch, past, 64}));
}

TEST_F(SymbolicShapes, TensorTypeCountsAndText) {
  const TensorType x = f32({batch, dim("past_sequence_length + sequence"), 768});
  EXPECT_FALSE(x.is_static());
  EXPECT_THROW((void)x.num_elements(), Error);
  EXPECT_EQ(x.element_count_dim(), dim("768*batch*past_sequence_length + 768*batch*sequence"));
  EXPECT_EQ(f32({2, 3}).num_elements(), 6);
  EXPECT_EQ(f32({2, 3}).element_count_dim(), 6);
  // An expression dim is written without spaces (the order of its terms is the symbols').
  const std::string text = to_string(x);
  EXPECT_TRUE(text == "f32[batch past_sequence_length+sequence 768]" ||
              text == "f32[batch sequence+past_sequence_length 768]")
      << text;
  for (const TensorType& type :
       {x, f32({dim("batch*sequence"), 64}), f32({dim("sequence / 2"), dim("sequence - 1")}),
        f32({}), TensorType{DType::I64, {4, batch}}}) {
    auto parsed = parse_tensor_type(to_string(type));
    ASSERT_TRUE(parsed.has_value()) << to_string(type);
    EXPECT_EQ(*parsed, type) << to_string(type);
  }
  // Shape problems: only the sizes' product is held to the limit.
  EXPECT_FALSE(shape_problem({batch, int64_t{1} << 20, int64_t{1} << 20}).has_value());
  EXPECT_TRUE(shape_problem({batch, int64_t{1} << 21, int64_t{1} << 20}).has_value());
  EXPECT_TRUE(shape_problem({batch, 0}).has_value());
  // An opaque node's recorded output types may be symbolic.
  auto opaque = infer(OpKind::Opaque, {},
                      {{"op_type", std::string("NonZero")},
                       {"output_types", std::string("i64[2 nonzero_count];f32[batch*sequence]")}});
  ASSERT_EQ(opaque.size(), 2u);
  EXPECT_EQ(opaque[0], (TensorType{DType::I64, {2, dim("nonzero_count")}}));
  EXPECT_EQ(opaque[1], f32({dim("batch*sequence")}));
}

TEST_F(SymbolicShapes, TextFormatRoundTrips) {
  GraphBuilder builder("decoder_step");
  ValueRef x = builder.input("x", {batch, sequence, 768});
  ValueRef cache = builder.input("cache", {batch, past, 768});
  ValueRef keys = builder.concat(1, {cache, x});
  ValueRef flat = builder.reshape(x, {dim("batch*sequence"), 768});
  ValueRef half = builder.input("half", {dim("sequence / 2"), 4});
  builder.output("keys", keys);
  builder.output("flat", builder.matmul(flat, builder.weight({768, 64})));
  builder.output("half", builder.relu(half));
  Graph graph = std::move(builder).finish();
  EXPECT_EQ(graph.type(keys).dims, (Dims{batch, dim("past_sequence_length + sequence"), 768}));

  std::string text = write_text(graph);
  EXPECT_NE(text.find(":shape [batch sequence 768]"), std::string::npos) << text;
  EXPECT_NE(text.find(":shape [batch*sequence 768]"), std::string::npos) << text;
  EXPECT_NE(text.find(":shape [\"(sequence)/2\" 4]"), std::string::npos) << text;
  Graph parsed = parse_text(text);
  EXPECT_TRUE(parsed == graph);
  EXPECT_EQ(write_text(parsed), text);

  // Written by hand, spaces and all, as long as the expression is one atom.
  Graph by_hand = parse_text(R"((graph g
    (node x (input :shape [batch sequence 768]))
    (node y (reshape x :shape [batch -1 12 64]))
    (node z (slice y :axis 1 :start 0 :end 9223372036854775807))
    (node c (input :shape [batch "past_sequence_length + sequence" 64]))))");
  EXPECT_EQ(by_hand.type(*by_hand.find_value("y")).dims, (Dims{batch, sequence, 12, 64}));
  EXPECT_EQ(by_hand.type(*by_hand.find_value("z")).dims, (Dims{batch, sequence, 12, 64}));
  EXPECT_EQ(by_hand.type(*by_hand.find_value("c")).dims,
            (Dims{batch, dim("past_sequence_length + sequence"), 64}));
  // Only shapes take symbolic dims; a symbolic weight is refused.
  EXPECT_THROW(parse_text("(graph g (node x (input :shape [2 3])) (node y (transpose x :perm [0 "
                          "a])))"),
               ParseError);
  EXPECT_THROW(parse_text("(graph g (node w (weight :shape [batch 3])))"), ParseError);
  EXPECT_THROW(parse_text("(graph g (node x (input :shape [batch+])))"), ParseError);
}
