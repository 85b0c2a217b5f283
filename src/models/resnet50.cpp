// ResNet-50's bottleneck stages as TASO's builder defines them: the input is the stem's output
// (1, 64, 56, 56) and there is no classifier head; convolutions fuse relu, batch norm is
// folded away.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::Activation;
using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

ValueRef bottleneck(GraphBuilder& b, ValueRef input, int64_t width, int64_t stride) {
  const int64_t in_channels = b.dims(input)[1];
  ValueRef t = b.conv(input, width, 1, 1, 1, Padding::Same, Activation::Relu);
  t = b.conv(t, width, 3, 3, stride, Padding::Same, Activation::Relu);
  t = b.conv(t, 4 * width, 1, 1);
  ValueRef shortcut = input;
  if (stride > 1 || in_channels != 4 * width) {
    // Standard linear projection (the ResNeXt builder's shortcut carries TASO's relu).
    shortcut = b.conv(input, 4 * width, 1, 1, stride);
  }
  return b.relu(b.ewadd(shortcut, t));
}

}  // namespace

ir::Graph build_resnet50(const ModelOptions& options) {
  const int64_t image = options.reduced ? 8 : 56;
  GraphBuilder b("resnet50");
  ValueRef t = b.input("input", {1, scaled(64, 8, options), image, image});
  const int blocks[] = {3, 4, 6, 3};
  int64_t width = scaled(64, 8, options);
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks[stage]; ++block) {
      int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      t = bottleneck(b, t, width, stride);
    }
    width *= 2;
  }
  b.output("output", t);
  return std::move(b).finish();
}

}  // namespace saturate::models
