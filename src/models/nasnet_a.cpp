// NasNet-A as TASO's and TENSAT's builders define it: a stem, then three repeats of 5 normal
// cells and a reduction cell. Cells follow the benchmark, not the paper: every cell input is
// squeezed by a 1x1 conv + relu, separable convs have no relu or batch norm, and a cell's
// output is an n-ary concat of its 5 sums.
#include <vector>

#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::Activation;
using ir::GraphBuilder;
using ir::Padding;
using ir::ValueRef;

constexpr int kNormalCells = 5;
constexpr int kRepeats = 3;

ValueRef squeeze(GraphBuilder& b, ValueRef x, int64_t channels) {
  return b.conv(x, channels, 1, 1, 1, Padding::Same, Activation::Relu);
}

// Brings `input` to the channels and spatial size of `current`.
ValueRef fit(GraphBuilder& b, ValueRef current, ValueRef input) {
  const int64_t channels = b.dims(current)[1];
  if (b.dims(input)[2] == b.dims(current)[2]) return squeeze(b, input, channels);
  return b.conv(input, channels, 3, 3, 2, Padding::Same, Activation::Relu);
}

// Depthwise conv (groups = channels) then a 1x1 conv.
ValueRef separable(GraphBuilder& b, ValueRef x, int64_t kernel, int64_t stride) {
  const int64_t channels = b.dims(x)[1];
  ValueRef t = b.conv(x, channels, kernel, kernel, stride, Padding::Same, Activation::None,
                      /*groups=*/channels);
  return b.conv(t, channels, 1, 1);
}

ValueRef avgpool3(GraphBuilder& b, ValueRef x, int64_t stride) {
  return b.poolavg(x, 3, 3, stride, stride, Padding::Same);
}

ValueRef maxpool3(GraphBuilder& b, ValueRef x, int64_t stride) {
  return b.poolmax(x, 3, 3, stride, stride, Padding::Same);
}

// Branches are built one statement at a time so that node and weight order does not depend on
// the compiler's argument evaluation order.
ValueRef normal_cell(GraphBuilder& b, ValueRef prev, ValueRef cur, int64_t channels) {
  cur = squeeze(b, cur, channels);
  prev = fit(b, cur, prev);
  std::vector<ValueRef> branches;
  branches.push_back(separable(b, cur, 3, 1));
  branches.push_back(cur);
  branches.push_back(separable(b, prev, 3, 1));
  branches.push_back(separable(b, cur, 3, 1));
  branches.push_back(avgpool3(b, cur, 1));
  branches.push_back(prev);
  branches.push_back(avgpool3(b, prev, 1));
  branches.push_back(avgpool3(b, prev, 1));
  branches.push_back(separable(b, prev, 3, 1));
  branches.push_back(separable(b, prev, 3, 1));
  std::vector<ValueRef> sums;
  for (size_t i = 0; i < branches.size(); i += 2) {
    sums.push_back(b.ewadd(branches[i], branches[i + 1]));
  }
  return b.concat(1, sums);
}

ValueRef reduction_cell(GraphBuilder& b, ValueRef prev, ValueRef cur, int64_t channels) {
  cur = squeeze(b, cur, channels);
  prev = fit(b, cur, prev);
  ValueRef left = separable(b, prev, 7, 2);
  ValueRef right = separable(b, cur, 5, 2);
  ValueRef s0 = b.ewadd(left, right);
  left = maxpool3(b, cur, 2);
  right = separable(b, prev, 7, 2);
  ValueRef s1 = b.ewadd(left, right);
  left = avgpool3(b, cur, 2);
  right = separable(b, prev, 5, 2);
  ValueRef s2 = b.ewadd(left, right);
  left = maxpool3(b, cur, 2);
  right = separable(b, s0, 3, 1);
  ValueRef s3 = b.ewadd(left, right);
  ValueRef s4 = b.ewadd(avgpool3(b, s0, 1), s1);
  return b.concat(1, {s0, s1, s2, s3, s4});
}

}  // namespace

ir::Graph build_nasnet_a(const ModelOptions& options) {
  const int64_t image = options.reduced ? 32 : 224;
  GraphBuilder b("nasnet_a");
  ValueRef input = b.input("input", {1, 3, image, image});
  input = b.conv(input, scaled(64, 8, options), 7, 7, 2, Padding::Same, Activation::Relu);
  input = b.poolmax(input, 3, 3, 2, 2, Padding::Same);
  int64_t channels = scaled(128, 8, options);
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    ValueRef prev = input;
    ValueRef cur = input;
    for (int cell = 0; cell < kNormalCells; ++cell) {
      ValueRef next = normal_cell(b, prev, cur, channels);
      prev = cur;
      cur = next;
    }
    channels *= 2;
    input = reduction_cell(b, prev, cur, channels);
  }
  b.output("output", input);
  return std::move(b).finish();
}

}  // namespace saturate::models
