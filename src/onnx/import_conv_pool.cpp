// ONNX -> IR: 2-D convolution and pooling (Conv, MaxPool, AveragePool, GlobalAveragePool).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"

namespace saturate::onnx {
namespace {

using ::onnx::NodeProto;

// Padding of a sliding window along one axis, as the IR's SAME computes it (extra at the end).
// validate_model bounds kernel and stride by 2^40 and sizes are at most 2^40: no overflow.
std::pair<int64_t, int64_t> same_pads(int64_t size, int64_t kernel, int64_t stride) {
  int64_t out = (size - 1) / stride + 1;  // ceil(size / stride)
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

// How an ONNX window's padding maps to the IR.
enum class WindowPadding { Valid, Same, Explicit };

struct WindowSpec {
  std::vector<int64_t> kernel;   // 2
  std::vector<int64_t> strides;  // 2
  std::vector<int64_t> pads;     // [top, left, bottom, right]
  WindowPadding padding = WindowPadding::Valid;
};

// Reads kernel_shape / strides / pads / auto_pad / dilations of a 2-D Conv or Pool node over an
// NCHW input of `dims`; `kernel` is the weight's spatial size for Conv.
WindowSpec window_spec(const NodeProto& node, const ir::Dims& dims,
                       std::optional<std::vector<int64_t>> kernel) {
  require(dims.size() == 4);
  WindowSpec spec;
  auto kernel_attr = attr_ints(node, "kernel_shape");
  if (kernel) {
    require(!kernel_attr || *kernel_attr == *kernel);
    spec.kernel = *kernel;
  } else {
    require(kernel_attr && kernel_attr->size() == 2);
    spec.kernel = *kernel_attr;
  }
  spec.strides = attr_ints(node, "strides").value_or(std::vector<int64_t>{1, 1});
  require(spec.strides.size() == 2 && spec.strides[0] > 0 && spec.strides[1] > 0);
  auto dilations = attr_ints(node, "dilations").value_or(std::vector<int64_t>{1, 1});
  require(dilations == std::vector<int64_t>({1, 1}));
  require(attr_int(node, "ceil_mode", 0) == 0);
  std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  std::vector<int64_t> upper(4);
  for (int axis = 0; axis < 2; ++axis) {
    auto [begin, end] = same_pads(dims[2 + axis], spec.kernel[axis], spec.strides[axis]);
    upper[axis] = begin;
    upper[axis + 2] = end;
  }
  if (auto_pad == "VALID") {
    spec.pads = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER") {
    spec.pads = upper;
  } else if (auto_pad == "SAME_LOWER") {
    spec.pads = {upper[2], upper[3], upper[0], upper[1]};
  } else {
    require(auto_pad == "NOTSET");
    spec.pads = attr_ints(node, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
    require(spec.pads.size() == 4);
  }
  for (int64_t p : spec.pads) require(p >= 0);
  bool same = spec.pads == upper;
  for (int axis = 0; same && axis < 2; ++axis) {
    // ONNX's output size with these pads must be the IR's SAME size, ceil(size / stride).
    int64_t size = dims[2 + axis];
    int64_t onnx_out =
        (size + spec.pads[axis] + spec.pads[axis + 2] - spec.kernel[axis]) / spec.strides[axis] + 1;
    same = onnx_out == (size + spec.strides[axis] - 1) / spec.strides[axis];
  }
  if (spec.pads == std::vector<int64_t>{0, 0, 0, 0}) {
    spec.padding = WindowPadding::Valid;
  } else if (same) {
    spec.padding = WindowPadding::Same;
  } else {
    spec.padding = WindowPadding::Explicit;
  }
  return spec;
}

}  // namespace

using ir::OpKind;
using ir::ValueRef;

bool Importer::import_conv_or_pool(const NodeProto& node) {
  const std::string& op = node.op_type();
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  if (op == "Conv") {
    import_conv(node);
    return true;
  }
  if (op == "MaxPool" || op == "AveragePool") {
    import_pool(node, op == "MaxPool");
    return true;
  }
  if (op == "GlobalAveragePool") {
    ValueRef x = input(node, 0);
    require(dims(x).size() >= 3);
    std::vector<int64_t> axes;
    for (int64_t a = 2; a < static_cast<int64_t>(dims(x).size()); ++a) axes.push_back(a);
    add(OpKind::ReduceMean, {x}, {{"axes", axes}, {"keepdims", int64_t{1}}}, out());
    return true;
  }
  return false;
}

void Importer::import_conv(const NodeProto& node) {
  ValueRef x = input(node, 0);
  ValueRef w = input(node, 1);
  const ir::Dims& xd = dims(x);
  const ir::Dims& wd = dims(w);
  require(xd.size() == 4 && wd.size() == 4);
  int64_t group = attr_int(node, "group", 1);
  require(group >= 1 && wd[1] * group == xd[1] && wd[0] % group == 0);
  WindowSpec spec = window_spec(node, xd, std::vector<int64_t>{wd[2], wd[3]});
  std::optional<ValueRef> bias;
  if (has_input(node, 2)) {
    bias = input(node, 2);
    require(dims(*bias) == ir::Dims{wd[0]});
  }
  const std::string& name = node.output(0);
  if (spec.padding == WindowPadding::Explicit) {
    x = add(OpKind::Pad, {x},
            {{"pads", std::vector<int64_t>{0, 0, spec.pads[0], spec.pads[1], 0, 0, spec.pads[2],
                                           spec.pads[3]}}},
            fresh(name + "_pad"));
  }
  ir::Padding padding =
      spec.padding == WindowPadding::Same ? ir::Padding::Same : ir::Padding::Valid;
  ir::Attributes attrs{{"stride_h", spec.strides[0]},
                       {"stride_w", spec.strides[1]},
                       {"padding", static_cast<int64_t>(padding)}};
  if (!bias) {
    add(OpKind::Conv2d, {x, w}, attrs, name);
    return;
  }
  ValueRef conv = add(OpKind::Conv2d, {x, w}, attrs, fresh(name + "_conv"));
  ValueRef b = reshape(*bias, {wd[0], 1, 1}, fresh(node.input(2) + "_nchw"));
  add(OpKind::Add, {conv, b}, {}, name);
}

void Importer::import_pool(const NodeProto& node, bool max) {
  ValueRef x = input(node, 0);
  WindowSpec spec = window_spec(node, dims(x), std::nullopt);
  ir::Attributes attrs{{"kernel_h", spec.kernel[0]},
                       {"kernel_w", spec.kernel[1]},
                       {"stride_h", spec.strides[0]},
                       {"stride_w", spec.strides[1]}};
  const std::string& name = node.output(0);
  OpKind kind = max ? OpKind::PoolMax : OpKind::PoolAvg;
  bool count_padding = !max && attr_int(node, "count_include_pad", 0) == 1;
  // The IR's SAME pools ignore the padding (max: it never wins; average: in-bounds elements
  // only), which is ONNX's MaxPool and AveragePool with count_include_pad = 0. Explicit zero
  // padding is exact only for an average that counts the padding; max pooling over explicit
  // pads stays opaque (ONNX pads with -inf there, a zero pad would win over negative values).
  if (spec.padding == WindowPadding::Valid) {
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Valid));
  } else if (spec.padding == WindowPadding::Same && !count_padding) {
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Same));
  } else {
    require(count_padding);
    x = add(OpKind::Pad, {x},
            {{"pads", std::vector<int64_t>{0, 0, spec.pads[0], spec.pads[1], 0, 0, spec.pads[2],
                                           spec.pads[3]}}},
            fresh(name + "_pad"));
    attrs.set("padding", static_cast<int64_t>(ir::Padding::Valid));
  }
  add(kind, {x}, attrs, name);
}

}  // namespace saturate::onnx
