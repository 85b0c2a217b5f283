// Inception-v3 at 299x299 (stem, 3 x A, B, 4 x C, D, 2 x E blocks) as in TENSAT's exported
// model: every conv fuses relu (batch norm folded away), and the network ends in the global
// average pool (no classifier). Concats are n-ary where TENSAT's ONNX import nested binary ones,
// so the count is a little lower than its ~130.
#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::Activation;
using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

class InceptionBuilder {
 public:
  InceptionBuilder(GraphBuilder& builder, const ModelOptions& options)
      : b_(builder), options_(options) {}

  ValueRef stem(ValueRef x) {
    x = conv(x, 32, 3, 3, 2, Padding::Valid);
    x = conv(x, 32, 3, 3, 1, Padding::Valid);
    x = conv(x, 64, 3, 3);
    x = maxpool(x);
    x = conv(x, 80, 1, 1);
    x = conv(x, 192, 3, 3, 1, Padding::Valid);
    return maxpool(x);
  }

  ValueRef block_a(ValueRef x, int64_t pool_features) {
    ValueRef b1 = conv(x, 64, 1, 1);
    ValueRef b5 = conv(x, 48, 1, 1);
    b5 = conv(b5, 64, 5, 5);
    ValueRef b3 = conv(x, 64, 1, 1);
    b3 = conv(b3, 96, 3, 3);
    b3 = conv(b3, 96, 3, 3);
    ValueRef pool = conv(avgpool(x), pool_features, 1, 1);
    return b_.concat(1, {b1, b5, b3, pool});
  }

  // Grid reduction 35 -> 17.
  ValueRef block_b(ValueRef x) {
    ValueRef b3 = conv(x, 384, 3, 3, 2, Padding::Valid);
    ValueRef dbl = conv(x, 64, 1, 1);
    dbl = conv(dbl, 96, 3, 3);
    dbl = conv(dbl, 96, 3, 3, 2, Padding::Valid);
    ValueRef pool = maxpool(x);
    return b_.concat(1, {b3, dbl, pool});
  }

  // Factorized 7x7 convolutions.
  ValueRef block_c(ValueRef x, int64_t c7) {
    ValueRef b1 = conv(x, 192, 1, 1);
    ValueRef b7 = conv(x, c7, 1, 1);
    b7 = conv(b7, c7, 1, 7);
    b7 = conv(b7, 192, 7, 1);
    ValueRef dbl = conv(x, c7, 1, 1);
    dbl = conv(dbl, c7, 7, 1);
    dbl = conv(dbl, c7, 1, 7);
    dbl = conv(dbl, c7, 7, 1);
    dbl = conv(dbl, 192, 1, 7);
    ValueRef pool = conv(avgpool(x), 192, 1, 1);
    return b_.concat(1, {b1, b7, dbl, pool});
  }

  // Grid reduction 17 -> 8.
  ValueRef block_d(ValueRef x) {
    ValueRef b3 = conv(x, 192, 1, 1);
    b3 = conv(b3, 320, 3, 3, 2, Padding::Valid);
    ValueRef b7 = conv(x, 192, 1, 1);
    b7 = conv(b7, 192, 1, 7);
    b7 = conv(b7, 192, 7, 1);
    b7 = conv(b7, 192, 3, 3, 2, Padding::Valid);
    ValueRef pool = maxpool(x);
    return b_.concat(1, {b3, b7, pool});
  }

  // Expanded filter bank: 3x3 convs split into parallel 1x3 and 3x1 ones.
  ValueRef block_e(ValueRef x) {
    ValueRef b1 = conv(x, 320, 1, 1);
    ValueRef b3 = conv(x, 384, 1, 1);
    b3 = fork_1x3_3x1(b3);
    ValueRef dbl = conv(x, 448, 1, 1);
    dbl = conv(dbl, 384, 3, 3);
    dbl = fork_1x3_3x1(dbl);
    ValueRef pool = conv(avgpool(x), 192, 1, 1);
    return b_.concat(1, {b1, b3, dbl, pool});
  }

 private:
  ValueRef conv(ValueRef x, int64_t channels, int64_t kernel_h, int64_t kernel_w,
                int64_t stride = 1, Padding padding = Padding::Same) {
    return b_.conv(x, scaled(channels, 8, options_), kernel_h, kernel_w, stride, padding,
                   Activation::Relu);
  }
  ValueRef fork_1x3_3x1(ValueRef x) {
    ValueRef a = conv(x, 384, 1, 3);
    ValueRef c = conv(x, 384, 3, 1);
    return b_.concat(1, {a, c});
  }
  ValueRef maxpool(ValueRef x) { return b_.poolmax(x, 3, 3, 2, 2, Padding::Valid); }
  ValueRef avgpool(ValueRef x) { return b_.poolavg(x, 3, 3, 1, 1, Padding::Same); }

  GraphBuilder& b_;
  const ModelOptions& options_;
};

}  // namespace

ir::Graph build_inception_v3(const ModelOptions& options) {
  // 107 still leaves a 2x2 map after the last grid reduction.
  const int64_t image = options.reduced ? 107 : 299;
  GraphBuilder b("inception_v3");
  InceptionBuilder net(b, options);
  ValueRef x = net.stem(b.input("input", {1, 3, image, image}));
  for (int64_t pool_features : {32, 64, 64}) x = net.block_a(x, pool_features);
  x = net.block_b(x);
  for (int64_t c7 : {128, 160, 160, 192}) x = net.block_c(x, c7);
  x = net.block_d(x);
  for (int i = 0; i < 2; ++i) x = net.block_e(x);
  b.output("output", global_avgpool(b, x));
  return std::move(b).finish();
}

}  // namespace saturate::models
