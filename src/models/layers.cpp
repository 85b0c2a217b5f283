#include "models/layers.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace saturate::models {

using ir::ValueRef;

int64_t scaled(int64_t full, int64_t divisor, const ModelOptions& options) {
  return options.reduced ? std::max<int64_t>(1, full / divisor) : full;
}

ValueRef global_avgpool(ir::GraphBuilder& builder, ValueRef x) {
  const ir::Dims& dims = builder.dims(x);
  return builder.poolavg(x, dims[2], dims[3], 1, 1, ir::Padding::Valid);
}

ValueRef flatten(ir::GraphBuilder& builder, ValueRef x) {
  const ir::Dims& dims = builder.dims(x);
  return builder.reshape(x, {dims[0], dims[1] * dims[2] * dims[3]});
}

ValueRef dense(ir::GraphBuilder& builder, ValueRef x, int64_t out_features) {
  int64_t in_features = builder.dims(x).back();
  ValueRef product = builder.matmul(x, builder.weight({in_features, out_features}));
  return builder.add(product, builder.weight({out_features}));
}

}  // namespace saturate::models

namespace saturate::models {

ir::ValueRef self_attention(ir::GraphBuilder& b, ir::ValueRef x, int64_t heads) {
  const ir::Dims& in = b.dims(x);
  const int64_t sequence = in.at(0);
  const int64_t model_dim = in.at(1);
  const int64_t head_dim = model_dim / heads;
  // (sequence, model) -> (heads, sequence, head_dim), or (heads, head_dim, sequence) for keys.
  auto to_heads = [&](ir::ValueRef t, std::vector<int64_t> perm) {
    return b.transpose(b.reshape(t, {sequence, heads, head_dim}), std::move(perm));
  };
  ir::ValueRef q = to_heads(dense(b, x, model_dim), {1, 0, 2});
  ir::ValueRef k = to_heads(dense(b, x, model_dim), {1, 2, 0});
  ir::ValueRef v = to_heads(dense(b, x, model_dim), {1, 0, 2});
  ir::ValueRef scores = b.matmul(q, k);
  ir::ValueRef scale = b.constant(std::sqrt(static_cast<double>(head_dim)));
  scores = b.softmax(b.div(scores, scale), -1);
  ir::ValueRef context = b.transpose(b.matmul(scores, v), {1, 0, 2});
  return dense(b, b.reshape(context, {sequence, model_dim}), model_dim);
}

}  // namespace saturate::models
