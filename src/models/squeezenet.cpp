// SqueezeNet 1.1 as in TENSAT's exported model: convs with a separate relu (the ONNX export
// does not fuse them; fusing would halve the op count), VALID max pools, 8 fire modules, a
// final 1x1 conv to the classes and a global average pool. Dropout is left out.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

ValueRef conv_relu(GraphBuilder& b, ValueRef x, int64_t channels, int64_t kernel,
                   int64_t stride = 1, Padding padding = Padding::Same) {
  return b.relu(b.conv(x, channels, kernel, kernel, stride, padding));
}

ValueRef fire(GraphBuilder& b, ValueRef x, int64_t squeeze, int64_t expand) {
  ValueRef s = conv_relu(b, x, squeeze, 1);
  ValueRef e1 = b.conv(s, expand, 1, 1);
  ValueRef e3 = b.conv(s, expand, 3, 3);
  e1 = b.relu(e1);
  e3 = b.relu(e3);
  return b.concat(1, {e1, e3});
}

ValueRef maxpool(GraphBuilder& b, ValueRef x) {
  return b.poolmax(x, 3, 3, 2, 2, Padding::Valid);
}

}  // namespace

ir::Graph build_squeezenet(const ModelOptions& options) {
  const int64_t image = options.reduced ? 48 : 224;
  const int64_t classes = options.reduced ? 10 : 1000;
  auto c = [&](int64_t channels) { return scaled(channels, 8, options); };
  GraphBuilder b("squeezenet");
  ValueRef x = b.input("input", {1, 3, image, image});
  x = conv_relu(b, x, c(64), 3, 2, Padding::Valid);
  x = maxpool(b, x);
  x = fire(b, x, c(16), c(64));
  x = fire(b, x, c(16), c(64));
  x = maxpool(b, x);
  x = fire(b, x, c(32), c(128));
  x = fire(b, x, c(32), c(128));
  x = maxpool(b, x);
  x = fire(b, x, c(48), c(192));
  x = fire(b, x, c(48), c(192));
  x = fire(b, x, c(64), c(256));
  x = fire(b, x, c(64), c(256));
  x = conv_relu(b, x, classes, 1);
  x = global_avgpool(b, x);
  b.output("output", flatten(b, x));
  return std::move(b).finish();
}

}  // namespace saturate::models
