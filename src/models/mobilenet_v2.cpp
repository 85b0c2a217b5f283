// MobileNetV2 (width 1.0, 224x224): inverted residual blocks with expansion 6, depthwise 3x3
// convs as grouped convs with groups = channels, relu6 as clip(0, 6). Batch norm is folded into
// the convs, so it does not appear.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

ValueRef relu6(GraphBuilder& b, ValueRef x) {
  return b.clip(x, 0.0, 6.0);
}

ValueRef inverted_residual(GraphBuilder& b, ValueRef input, int64_t expansion, int64_t out_channels,
                           int64_t stride) {
  const int64_t in_channels = b.dims(input)[1];
  const int64_t hidden = in_channels * expansion;
  ValueRef t = input;
  if (expansion != 1) t = relu6(b, b.conv(t, hidden, 1, 1));
  t = relu6(b, b.conv(t, hidden, 3, 3, stride, Padding::Same, ir::Activation::None, hidden));
  t = b.conv(t, out_channels, 1, 1);  // linear bottleneck: no activation
  if (stride == 1 && in_channels == out_channels) t = b.ewadd(input, t);
  return t;
}

struct Stage {
  int64_t expansion;
  int64_t channels;
  int repeats;
  int64_t stride;
};

}  // namespace

ir::Graph build_mobilenet_v2(const ModelOptions& options) {
  const int64_t image = options.reduced ? 32 : 224;
  const int64_t classes = options.reduced ? 10 : 1000;
  auto c = [&](int64_t channels) { return scaled(channels, 8, options); };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  GraphBuilder b("mobilenet_v2");
  ValueRef x = b.input("input", {1, 3, image, image});
  x = relu6(b, b.conv(x, c(32), 3, 3, 2));
  for (const Stage& stage : stages) {
    for (int i = 0; i < stage.repeats; ++i) {
      x = inverted_residual(b, x, stage.expansion, c(stage.channels), i == 0 ? stage.stride : 1);
    }
  }
  x = relu6(b, b.conv(x, c(1280), 1, 1));
  x = flatten(b, global_avgpool(b, x));
  b.output("output", dense(b, x, classes));
  return std::move(b).finish();
}

}  // namespace saturate::models
