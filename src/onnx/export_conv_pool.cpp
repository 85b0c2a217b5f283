// IR -> ONNX: 2-D convolution and pooling, with a foldable pad written into their pads.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "onnx/onnx_exporter.h"
#include "onnx/onnx_tensor_data.h"

namespace saturate::onnx {
namespace {

std::pair<int64_t, int64_t> same_pads(int64_t size, int64_t out, int64_t kernel, int64_t stride) {
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

}  // namespace

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

bool Exporter::emit_conv_or_pool(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  switch (node.op) {
    case OpKind::Conv2d:
    case OpKind::FusedConv: {
      const ir::Dims& x = dims(node.inputs[0]);
      const ir::Dims& w = dims(node.inputs[1]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t sh = attrs.get_int("stride_h");
      int64_t sw = attrs.get_int("stride_w");
      std::vector<int64_t> pads{0, 0, 0, 0};
      if (attrs.get_padding() == ir::Padding::Same) {
        auto [top, bottom] = same_pads(x[2], out[2], w[2], sh);
        auto [left, right] = same_pads(x[3], out[3], w[3], sw);
        pads = {top, left, bottom, right};
      }
      std::string source = in(0);
      if (auto pad = foldable_pad(id)) {
        const auto& p = graph_.node(*pad).attrs.get_ints("pads");
        pads = {pads[0] + p[2], pads[1] + p[3], pads[2] + p[6], pads[3] + p[7]};
        source = name_of(graph_.node(*pad).inputs[0]);
      }
      const ir::Activation activation = attrs.get_activation();
      std::vector<std::string> inputs{source, in(1)};
      std::string written = y;
      std::string op_type = "Conv";
      if (node.op == OpKind::Conv2d) {
        written = pre_activation(id);
      } else {
        inputs.push_back(conv_bias(id));
        // Neither activation nor sum: a standard Conv with its bias.
        if (activation != ir::Activation::None || node.inputs.size() > 3) op_type = "FusedConv";
        if (node.inputs.size() > 3) inputs.push_back(in(3));
      }
      NodeProto& conv = add_node(op_type, inputs, {written});
      add_attr(conv, "kernel_shape", std::vector<int64_t>{w[2], w[3]});
      add_attr(conv, "strides", std::vector<int64_t>{sh, sw});
      add_attr(conv, "pads", pads);
      add_attr(conv, "group", x[1] / w[1]);
      if (op_type == "FusedConv") {
        conv.set_domain(std::string(kMicrosoftDomain));
        uses_microsoft_domain_ = true;
        if (activation != ir::Activation::None) {
          add_attr(conv, "activation", std::string(activation_op(activation)));
        }
        if (ir::has_parameters(activation)) {
          // ONNX Runtime's activation_params: Clip's min and max, LeakyRelu's alpha,
          // HardSigmoid's alpha and beta.
          std::vector<float> params{static_cast<float>(attrs.get_float("activation_alpha"))};
          if (activation != ir::Activation::LeakyRelu) {
            params.push_back(static_cast<float>(attrs.get_float("activation_beta")));
          }
          add_attr(conv, "activation_params", params);
        }
      }
      if (node.op == OpKind::Conv2d) emit_activation(written, y, activation);
      return true;
    }
    case OpKind::PoolMax:
    case OpKind::PoolAvg: {
      const ir::Dims& x = dims(node.inputs[0]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t kh = attrs.get_int("kernel_h");
      int64_t kw = attrs.get_int("kernel_w");
      int64_t sh = attrs.get_int("stride_h");
      int64_t sw = attrs.get_int("stride_w");
      std::vector<int64_t> pads{0, 0, 0, 0};
      if (attrs.get_padding() == ir::Padding::Same) {
        auto [top, bottom] = same_pads(x[2], out[2], kh, sh);
        auto [left, right] = same_pads(x[3], out[3], kw, sw);
        pads = {top, left, bottom, right};
      }
      std::string source = in(0);
      bool count_padding = false;
      if (auto pad = foldable_pad(id)) {
        const auto& p = graph_.node(*pad).attrs.get_ints("pads");
        pads = {p[2], p[3], p[6], p[7]};
        source = name_of(graph_.node(*pad).inputs[0]);
        count_padding = true;
      }
      std::string pre = pre_activation(id);
      NodeProto& pool =
          add_node(node.op == OpKind::PoolMax ? "MaxPool" : "AveragePool", {source}, {pre});
      add_attr(pool, "kernel_shape", std::vector<int64_t>{kh, kw});
      add_attr(pool, "strides", std::vector<int64_t>{sh, sw});
      add_attr(pool, "pads", pads);
      if (node.op == OpKind::PoolAvg) add_attr(pool, "count_include_pad", int64_t{count_padding});
      emit_activation(pre, y, attrs.get_activation());
      return true;
    }
    default:
      return false;
  }
}

bool Exporter::rewrites_known_conv_bias(NodeId id) const {
  const ir::Node& node = graph_.node(id);
  return node.op == OpKind::FusedConv && dims(node.inputs[2]).size() != 1 &&
         known_[resolve(node.inputs[2]).node];
}

std::string Exporter::conv_bias(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const int64_t channels = node.outputs[0].dims[1];
  // The shape check allows a 1-d bias only as (C).
  if (dims(node.inputs[2]).size() == 1) return name_of(node.inputs[2]);
  const std::string base = names_[id][0] + "_bias";
  std::string name = fresh(base);
  // Conv's bias is 1-d: a known (C, 1, 1) bias is written again in that shape, any other
  // reshaped.
  if (rewrites_known_conv_bias(id)) {
    const runtime::Tensor data = value_of(resolve(node.inputs[2]));
    std::vector<float> floats(data.data.begin(), data.data.end());
    write_floats(*out_->add_initializer(), name, {channels}, floats, node.outputs[0].dtype);
    return name;
  }
  add_node("Reshape", {name_of(node.inputs[2]), ints_initializer({channels}, base + "_shape")},
           {name});
  return name;
}

}  // namespace saturate::onnx
