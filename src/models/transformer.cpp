// A standard (post-norm) transformer encoder block: multi-head self-attention and a GELU
// feed-forward network, each with a residual add and layer norm. Unlike the BERT benchmark it
// has biases, the 1/sqrt(d_head) scale and a softmax. Two writings of the same computation:
// with layer norm and GELU as single operators, and decomposed the way an ONNX exporter emits
// them (what PyPM's fusion rules are for).
#include <algorithm>
#include <cmath>

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

EncoderSizes sizes_for(const ModelOptions& options) {
  return options.reduced ? EncoderSizes{8, 32, 4, 128} : EncoderSizes{128, 512, 8, 2048};
}

// Layer norm over the last axis as exporters write it:
// (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale + bias.
ValueRef decomposed_layernorm(GraphBuilder& b, ValueRef x, bool square_by_pow) {
  const int64_t width = b.dims(x).back();
  ValueRef centered = b.sub(x, b.reduce_mean(x, {-1}));
  ValueRef squared = square_by_pow ? b.pow(centered, b.constant(2.0)) : b.mul(centered, centered);
  ValueRef deviation = b.sqrt(b.add(b.reduce_mean(squared, {-1}), b.constant(1e-5)));
  ValueRef normalized = b.div(centered, deviation);
  return b.add(b.mul(normalized, b.weight({width})), b.weight({width}));
}

// GELU as x/2 * (1 + erf(x / sqrt 2)); Hugging Face models write x/2 as x * 0.5 in some places
// and x / 2 in others, and put the 1 on either side of the add.
ValueRef decomposed_gelu(GraphBuilder& b, ValueRef x, bool half_by_division) {
  ValueRef half = half_by_division ? b.div(x, b.constant(2.0)) : b.mul(x, b.constant(0.5));
  ValueRef erf = b.erf(b.div(x, b.constant(std::sqrt(2.0))));
  ValueRef one_plus = half_by_division ? b.add(b.constant(1.0), erf) : b.add(erf, b.constant(1.0));
  return b.mul(half, one_plus);
}

}  // namespace

ir::Graph build_transformer_decomposed(const ModelOptions& options) {
  const EncoderSizes sizes = sizes_for(options);
  GraphBuilder b("transformer_decomposed");
  ValueRef x = b.input("input", {sizes.sequence, sizes.model_dim});
  // Layers alternate between the writings, so one model carries every form.
  const int layers = options.layers > 0 ? options.layers : 2;
  for (int layer = 0; layer < layers; ++layer) {
    const bool variant = layer % 2 == 0;
    ValueRef attended = self_attention(b, x, sizes.heads);
    x = decomposed_layernorm(b, b.ewadd(x, attended), variant);
    ValueRef hidden = decomposed_gelu(b, dense(b, x, sizes.ffn_dim), variant);
    ValueRef projected = dense(b, hidden, sizes.model_dim);
    x = decomposed_layernorm(b, b.ewadd(x, projected), !variant);
  }
  b.output("output", x);
  return std::move(b).finish();
}

ir::Graph build_transformer(const ModelOptions& options) {
  const EncoderSizes sizes = sizes_for(options);
  GraphBuilder b("transformer");
  ValueRef x = b.input("input", {sizes.sequence, sizes.model_dim});
  ValueRef attended = self_attention(b, x, sizes.heads);
  x = b.layernorm(b.ewadd(x, attended));
  ValueRef hidden = b.gelu(dense(b, x, sizes.ffn_dim));
  ValueRef projected = dense(b, hidden, sizes.model_dim);
  x = b.layernorm(b.ewadd(x, projected));
  b.output("output", x);
  return std::move(b).finish();
}

}  // namespace saturate::models
