// One standard (post-norm) transformer encoder block: multi-head self-attention and a GELU
// feed-forward network, each with a residual add and layer norm. Unlike the BERT benchmark it
// has biases, the 1/sqrt(d_head) scale and a softmax.
#include <cmath>
#include <vector>

#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::GraphBuilder;
using ir::ValueRef;

struct EncoderSizes {
  int64_t sequence;
  int64_t model_dim;
  int64_t heads;
  int64_t ffn_dim;
};

ValueRef self_attention(GraphBuilder& b, ValueRef x, const EncoderSizes& sizes) {
  const int64_t head_dim = sizes.model_dim / sizes.heads;
  // (sequence, model) -> (heads, sequence, head_dim), or (heads, head_dim, sequence) for keys.
  auto to_heads = [&](ValueRef t, std::vector<int64_t> perm) {
    return b.transpose(b.reshape(t, {sizes.sequence, sizes.heads, head_dim}), std::move(perm));
  };
  ValueRef q = dense(b, x, sizes.model_dim);
  ValueRef k = dense(b, x, sizes.model_dim);
  ValueRef v = dense(b, x, sizes.model_dim);
  q = to_heads(q, {1, 0, 2});
  k = to_heads(k, {1, 2, 0});
  v = to_heads(v, {1, 0, 2});
  ValueRef scores = b.matmul(q, k);
  ValueRef scale = b.constant(std::sqrt(static_cast<double>(head_dim)));
  scores = b.softmax(b.div(scores, scale), -1);
  ValueRef context = b.matmul(scores, v);
  context = b.transpose(context, {1, 0, 2});
  context = b.reshape(context, {sizes.sequence, sizes.model_dim});
  return dense(b, context, sizes.model_dim);
}

}  // namespace

ir::Graph build_transformer(const ModelOptions& options) {
  const EncoderSizes sizes =
      options.reduced ? EncoderSizes{8, 32, 4, 128} : EncoderSizes{128, 512, 8, 2048};
  GraphBuilder b("transformer");
  ValueRef x = b.input("input", {sizes.sequence, sizes.model_dim});
  ValueRef attended = self_attention(b, x, sizes);
  x = b.layernorm(b.ewadd(x, attended));
  ValueRef hidden = b.gelu(dense(b, x, sizes.ffn_dim));
  ValueRef projected = dense(b, hidden, sizes.model_dim);
  x = b.layernorm(b.ewadd(x, projected));
  b.output("output", x);
  return std::move(b).finish();
}

}  // namespace saturate::models
