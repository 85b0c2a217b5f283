// VGG-19 as in TENSAT's exported model: 16 3x3 convs each followed by a separate relu (the ONNX
// export does not fuse them, and the ~50-op count depends on it), 2x2 max pools, and three
// fully connected layers (reshape, then matmul + bias add; relu between them). Dropout is left
// out.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {

ir::Graph build_vgg19(const ModelOptions& options) {
  using ir::Padding;
  using ir::ValueRef;
  const int64_t image = options.reduced ? 32 : 224;
  const int64_t hidden = scaled(4096, 64, options);
  const int64_t classes = options.reduced ? 10 : 1000;
  const int convs_per_block[] = {2, 2, 4, 4, 4};
  const int64_t block_channels[] = {64, 128, 256, 512, 512};
  ir::GraphBuilder b("vgg19");
  ValueRef x = b.input("input", {1, 3, image, image});
  for (int block = 0; block < 5; ++block) {
    for (int i = 0; i < convs_per_block[block]; ++i) {
      x = b.relu(b.conv(x, scaled(block_channels[block], 8, options), 3, 3));
    }
    x = b.poolmax(x, 2, 2, 2, 2, Padding::Valid);
  }
  x = flatten(b, x);
  x = b.relu(dense(b, x, hidden));
  x = b.relu(dense(b, x, hidden));
  x = dense(b, x, classes);
  b.output("output", x);
  return std::move(b).finish();
}

}  // namespace saturate::models
