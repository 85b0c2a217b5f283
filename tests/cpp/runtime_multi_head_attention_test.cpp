// ONNX Runtime's MultiHeadAttention in the reference interpreter: agreement with the graph the
// exporters write for it (head split, scaled product, additive mask, softmax, head merge) on
// random inputs, for several shapes and mask broadcasts, and its shape checks.
#include <gtest/gtest.h>

#include <vector>

#include "ir/graph_builder.h"
#include "ir/op_registry.h"
#include "runtime/graph_comparison.h"
#include "support/error.h"

using namespace saturate::ir;
using namespace saturate::runtime;

namespace {

struct Case {
  int64_t batch, queries, keys, heads, head_size, value_head_size;
  Dims mask;  // empty: no mask
  double scale;
};

Graph build(const Case& c, bool fused) {
  GraphBuilder b(fused ? "fused" : "unfused");
  const int64_t hidden = c.heads * c.head_size;
  const int64_t value_hidden = c.heads * c.value_head_size;
  ValueRef q = b.input("q", {c.batch, c.queries, hidden});
  ValueRef k = b.input("k", {c.batch, c.keys, hidden});
  ValueRef v = b.input("v", {c.batch, c.keys, value_hidden});
  std::optional<ValueRef> mask;
  if (!c.mask.empty()) mask = b.input("mask", c.mask);
  if (fused) {
    std::vector<ValueRef> inputs{q, k, v};
    if (mask) inputs.push_back(*mask);
    b.output("y", b.apply(OpKind::MultiHeadAttention, inputs,
                          {{"num_heads", c.heads}, {"scale", c.scale}}));
    return std::move(b).finish();
  }
  ValueRef qh = b.transpose(b.reshape(q, {c.batch, c.queries, c.heads, c.head_size}), {0, 2, 1, 3});
  ValueRef kt = b.transpose(b.reshape(k, {c.batch, c.keys, c.heads, c.head_size}), {0, 2, 3, 1});
  ValueRef vh =
      b.transpose(b.reshape(v, {c.batch, c.keys, c.heads, c.value_head_size}), {0, 2, 1, 3});
  ValueRef scores = b.mul(b.matmul(qh, kt), b.constant(c.scale));
  if (mask) scores = b.add(scores, *mask);
  ValueRef heads = b.matmul(b.softmax(scores, -1), vh);
  b.output("y", b.reshape(b.transpose(heads, {0, 2, 1, 3}), {c.batch, c.queries, value_hidden}));
  return std::move(b).finish();
}

}  // namespace

TEST(MultiHeadAttention, EqualsTheExportersGraphOnRandomInputs) {
  const std::vector<Case> cases = {
      {1, 8, 8, 2, 4, 4, {}, 0.5},
      {2, 5, 7, 3, 4, 2, {}, 0.125},           // cross attention, value heads of another size
      {2, 6, 6, 4, 8, 8, {2, 1, 1, 6}, 0.35},  // a padding mask (B, 1, 1, L)
      {1, 6, 6, 2, 4, 4, {1, 1, 6, 6}, 0.5},   // a causal-style mask (1, 1, S, L)
      {2, 3, 5, 2, 2, 2, {2, 2, 3, 5}, 1.0},   // a full bias
      {1, 4, 4, 1, 16, 16, {4}, 0.25},         // one head, a mask of rank 1
  };
  for (const Case& c : cases) {
    GraphComparison comparison = compare_graphs(build(c, false), build(c, true), 11);
    EXPECT_TRUE(comparison.finite);
    EXPECT_LT(comparison.max_abs_error, 1e-9)
        << "heads " << c.heads << ", queries " << c.queries << ", keys " << c.keys;
  }
}

TEST(MultiHeadAttention, ChecksItsShapes) {
  auto infer = [](std::vector<TensorType> in, int64_t heads) {
    return infer_types(OpKind::MultiHeadAttention, in, {{"num_heads", heads}, {"scale", 1.0}});
  };
  auto f32 = [](Dims dims) { return TensorType{DType::F32, std::move(dims)}; };
  EXPECT_EQ(infer({f32({2, 5, 8}), f32({2, 7, 8}), f32({2, 7, 6})}, 2).front().dims,
            (Dims{2, 5, 6}));
  EXPECT_THROW(infer({f32({2, 5, 8}), f32({2, 7, 8}), f32({2, 7, 6})}, 3), saturate::Error);
  EXPECT_THROW(infer({f32({2, 5, 8}), f32({2, 7, 4}), f32({2, 7, 8})}, 2), saturate::Error);
  EXPECT_THROW(infer({f32({2, 5, 8}), f32({1, 7, 8}), f32({1, 7, 8})}, 2), saturate::Error);
  EXPECT_THROW(infer({f32({2, 5, 8}), f32({2, 7, 8}), f32({2, 7, 8}), f32({2, 1, 5, 6})}, 2),
               saturate::Error);
  EXPECT_THROW(infer({f32({5, 8}), f32({7, 8}), f32({7, 8})}, 2), saturate::Error);
}

// Keys and values split into heads already, (B, N, L, H) (ONNX Runtime's BNSH layout, as a
// key-value cache holds them), against the same kernel on the heads merged into (B, L, N H) and
// against the exporters' graph on the heads as they are.
TEST(MultiHeadAttention, KeysAndValuesSplitIntoHeadsEqualTheMergedForm) {
  struct HeadCase {
    int64_t batch, queries, keys, heads, head_size, value_head_size;
    Dims mask;
  };
  const std::vector<HeadCase> cases = {{1, 1, 17, 4, 16, 16, {1, 1, 1, 17}},  // a decode step
                                       {2, 4, 9, 2, 4, 3, {2, 1, 4, 9}},
                                       {1, 5, 5, 3, 2, 2, {}}};
  for (const HeadCase& c : cases) {
    const Attributes attrs{{"num_heads", c.heads}, {"scale", 0.3}};
    const Dims key_heads{c.batch, c.heads, c.keys, c.head_size};
    const Dims value_heads{c.batch, c.heads, c.keys, c.value_head_size};
    auto inputs = [&](GraphBuilder& b) {
      std::vector<ValueRef> in{b.input("q", {c.batch, c.queries, c.heads * c.head_size}),
                               b.input("k", key_heads), b.input("v", value_heads)};
      if (!c.mask.empty()) in.push_back(b.input("mask", c.mask));
      return in;
    };
    GraphBuilder split("split");
    split.output("y", split.apply(OpKind::MultiHeadAttention, inputs(split), attrs));
    GraphBuilder merged("merged");
    std::vector<ValueRef> in = inputs(merged);
    in[1] = merged.reshape(merged.transpose(in[1], {0, 2, 1, 3}),
                           {c.batch, c.keys, c.heads * c.head_size});
    in[2] = merged.reshape(merged.transpose(in[2], {0, 2, 1, 3}),
                           {c.batch, c.keys, c.heads * c.value_head_size});
    merged.output("y", merged.apply(OpKind::MultiHeadAttention, in, attrs));
    GraphBuilder unfused("unfused");
    std::vector<ValueRef> raw = inputs(unfused);
    ValueRef qh = unfused.transpose(
        unfused.reshape(raw[0], {c.batch, c.queries, c.heads, c.head_size}), {0, 2, 1, 3});
    ValueRef scores = unfused.mul(unfused.matmul(qh, unfused.transpose(raw[1], {0, 1, 3, 2})),
                                  unfused.constant(0.3));
    if (raw.size() == 4) scores = unfused.add(scores, raw[3]);
    ValueRef heads = unfused.matmul(unfused.softmax(scores, -1), raw[2]);
    unfused.output("y", unfused.reshape(unfused.transpose(heads, {0, 2, 1, 3}),
                                        {c.batch, c.queries, c.heads * c.value_head_size}));
    Graph fused = std::move(split).finish();
    std::vector<Graph> references;
    references.push_back(std::move(merged).finish());
    references.push_back(std::move(unfused).finish());
    for (const Graph& reference : references) {
      GraphComparison comparison = compare_graphs(reference, fused, 5);
      EXPECT_TRUE(comparison.finite);
      EXPECT_LT(comparison.max_abs_error, 1e-9) << reference.name() << ", keys " << c.keys;
    }
  }
  auto f32 = [](Dims dims) { return TensorType{DType::F32, std::move(dims)}; };
  const Attributes four{{"num_heads", int64_t{4}}, {"scale", 1.0}};
  EXPECT_EQ(infer_types(OpKind::MultiHeadAttention,
                        {f32({1, 3, 64}), f32({1, 4, 19, 16}), f32({1, 4, 19, 8})}, four)
                .front()
                .dims,
            (Dims{1, 3, 32}));
  // Two key heads for four query heads (grouped, not expanded), a 3-d value, another key length.
  EXPECT_THROW(infer_types(OpKind::MultiHeadAttention,
                           {f32({1, 3, 64}), f32({1, 2, 19, 32}), f32({1, 2, 19, 32})}, four),
               saturate::Error);
  EXPECT_THROW(infer_types(OpKind::MultiHeadAttention,
                           {f32({1, 3, 64}), f32({1, 4, 19, 16}), f32({1, 19, 64})}, four),
               saturate::Error);
  EXPECT_THROW(infer_types(OpKind::MultiHeadAttention,
                           {f32({1, 3, 64}), f32({1, 4, 19, 16}), f32({1, 4, 18, 16})}, four),
               saturate::Error);
}

// ONNX Runtime's Attention (the IR's qkv_attention): the three projections x W + b of one input,
// their weights packed column-wise, then multi-head attention, against the projections written
// out and multi_head_attention (itself checked against the exporters' graph above).
TEST(QkvAttention, EqualsThreeProjectionsThenMultiHeadAttention) {
  struct Projected {
    int64_t batch, sequence, in, heads, head_size;
    Dims mask;
  };
  const std::vector<Projected> cases = {
      {1, 6, 8, 2, 4, {}}, {2, 5, 6, 3, 2, {2, 1, 1, 5}}, {1, 7, 12, 4, 3, {1, 1, 7, 7}}};
  for (const Projected& c : cases) {
    const int64_t hidden = c.heads * c.head_size;
    const Attributes attrs{{"num_heads", c.heads}, {"scale", 0.4}};
    GraphBuilder unfused("unfused");
    ValueRef x = unfused.input("x", {c.batch, c.sequence, c.in});
    ValueRef w = unfused.input("w", {c.in, 3 * hidden});
    ValueRef bias = unfused.input("b", {3 * hidden});
    std::vector<ValueRef> heads_in;
    for (int64_t part = 0; part < 3; ++part) {
      ValueRef weight = unfused.apply(
          OpKind::Slice, {w},
          {{"axis", int64_t{1}}, {"start", part * hidden}, {"end", (part + 1) * hidden}});
      ValueRef shift = unfused.apply(
          OpKind::Slice, {bias},
          {{"axis", int64_t{0}}, {"start", part * hidden}, {"end", (part + 1) * hidden}});
      heads_in.push_back(unfused.add(unfused.matmul(x, weight), shift));
    }
    GraphBuilder fused("fused");
    std::vector<ValueRef> packed{fused.input("x", {c.batch, c.sequence, c.in}),
                                 fused.input("w", {c.in, 3 * hidden}),
                                 fused.input("b", {3 * hidden})};
    if (!c.mask.empty()) {
      heads_in.push_back(unfused.input("mask", c.mask));
      packed.push_back(fused.input("mask", c.mask));
    }
    unfused.output("y", unfused.apply(OpKind::MultiHeadAttention, heads_in, attrs));
    fused.output("y", fused.apply(OpKind::QkvAttention, packed, attrs));
    GraphComparison comparison =
        compare_graphs(std::move(unfused).finish(), std::move(fused).finish(), 13);
    EXPECT_TRUE(comparison.finite);
    EXPECT_LT(comparison.max_abs_error, 1e-9) << "heads " << c.heads << ", in " << c.in;
  }
}
