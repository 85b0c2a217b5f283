// BERT as TASO's and TENSAT's builders define it: a relu, then 8 multi-head attention layers
// without softmax, layer norm or feed-forward parts (the benchmark keeps only the matmul,
// reshape and transpose structure).
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::GraphBuilder;
using ir::ValueRef;

constexpr int kLayers = 8;

ValueRef attention(GraphBuilder& b, ValueRef input, int64_t heads) {
  const int64_t sequence = b.dims(input)[0];
  const int64_t model_dim = b.dims(input)[1];
  const int64_t head_dim = model_dim / heads;
  auto project = [&] { return b.matmul(input, b.weight({model_dim, model_dim})); };
  ValueRef q = project();
  ValueRef k = project();
  ValueRef v = project();
  q = b.reshape(q, {sequence, heads, head_dim});
  k = b.reshape(k, {sequence, heads, head_dim});
  v = b.reshape(v, {sequence, heads, head_dim});
  // Heads first; k is also transposed so that q·k needs no further transpose.
  q = b.transpose(q, {1, 0, 2});
  k = b.transpose(k, {1, 2, 0});
  v = b.transpose(v, {1, 0, 2});
  ValueRef logits = b.matmul(q, k);
  ValueRef out = b.matmul(logits, v);
  out = b.transpose(out, {1, 0, 2});
  out = b.reshape(out, {sequence, model_dim});
  return b.matmul(out, b.weight({model_dim, model_dim}));
}

}  // namespace

ir::Graph build_bert(const ModelOptions& options) {
  const int64_t sequence = scaled(64, 8, options);
  const int64_t model_dim = scaled(1024, 32, options);
  const int64_t heads = options.reduced ? 4 : 16;
  GraphBuilder b("bert");
  ValueRef t = b.relu(b.input("input", {sequence, model_dim}));
  for (int layer = 0; layer < kLayers; ++layer) t = attention(b, t, heads);
  b.output("output", t);
  return std::move(b).finish();
}

}  // namespace saturate::models
