// ResNeXt-50 (32 groups) as TASO's and TENSAT's builders define it: convolutions with fused
// relu, no batch norm, no classifier head.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::Activation;
using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

ValueRef resnext_block(GraphBuilder& b, ValueRef input, int64_t stride, int64_t width,
                       int64_t groups) {
  const int64_t in_channels = b.dims(input)[1];
  ValueRef t = b.conv(input, width, 1, 1, 1, Padding::Same, Activation::Relu);
  t = b.conv(t, width, 3, 3, stride, Padding::Same, Activation::Relu, groups);
  t = b.conv(t, 2 * width, 1, 1);
  ValueRef shortcut = input;
  if (stride > 1 || in_channels != 2 * width) {
    // TASO's projection shortcut carries a fused relu; kept for fidelity to the benchmark.
    shortcut = b.conv(input, 2 * width, 1, 1, stride, Padding::Same, Activation::Relu);
  }
  return b.relu(b.ewadd(shortcut, t));
}

}  // namespace

ir::Graph build_resnext50(const ModelOptions& options) {
  const int64_t image = options.reduced ? 32 : 224;
  // The reduced variant keeps 2 channels per group (widths / 8, groups / 4).
  const int64_t groups = options.reduced ? 8 : 32;
  GraphBuilder b("resnext50");
  ValueRef t = b.input("input", {1, 3, image, image});
  t = b.conv(t, scaled(64, 8, options), 7, 7, 2, Padding::Same, Activation::Relu);
  t = b.poolmax(t, 3, 3, 2, 2, Padding::Same);
  const int blocks[] = {3, 4, 6, 3};
  int64_t width = scaled(128, 8, options);
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks[stage]; ++block) {
      int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      t = resnext_block(b, t, stride, width, groups);
    }
    width *= 2;
  }
  b.output("output", t);
  return std::move(b).finish();
}

}  // namespace saturate::models
