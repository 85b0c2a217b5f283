#include "models/layers.h"

#include <algorithm>

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
