// ONNX -> IR: softmax, normalizations (LayerNormalization, ONNX Runtime's RMSNorm,
// BatchNormalization) and ReduceMean.
#include <optional>
#include <string>
#include <vector>

#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"

namespace saturate::onnx {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::NodeProto;

bool Importer::import_normalization(const NodeProto& node) {
  const std::string& op = node.op_type();
  const int64_t opset = result_.opset;
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  if (op == "Softmax") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", opset < 13 ? 1 : -1), rank);
    // Before opset 13 Softmax flattens the axes from `axis` on: one axis only when it is last.
    require(opset >= 13 || axis == rank - 1);
    add(OpKind::Softmax, {x}, {{"axis", axis}}, out());
    return true;
  }
  if (op == "LayerNormalization") {
    ValueRef x = input(node, 0);
    ValueRef scale = input(node, 1);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank);
    ir::Dims normalized(dims(x).begin() + axis, dims(x).end());
    require(dims(scale) == normalized);
    ValueRef bias;
    if (has_input(node, 2)) {
      bias = input(node, 2);
      require(dims(bias) == normalized);
    } else {
      bias = add(OpKind::Constant, {},
                 {{"shape", normalized},
                  {"value", 0.0},
                  {"dtype", std::string(ir::to_string(graph().type(scale).dtype))}},
                 fresh(out() + "_zero_bias"));
    }
    add(OpKind::LayerNorm, {x, scale, bias},
        {{"axis", axis}, {"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}}, out());
    return true;
  }
  if (op == "SimplifiedLayerNormalization") {
    // ONNX Runtime's RMSNorm, in the default domain (what --target onnxruntime writes).
    require(attr_int(node, "stash_type", 1) == 1);
    ValueRef x = input(node, 0);
    ValueRef scale = input(node, 1);
    auto rank = static_cast<int64_t>(dims(x).size());
    int64_t axis = normalize_axis(attr_int(node, "axis", -1), rank);
    require(dims(scale) == ir::Dims(dims(x).begin() + axis, dims(x).end()));
    add(OpKind::RMSNorm, {x, scale},
        {{"axis", axis}, {"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}}, out());
    return true;
  }
  if (op == "BatchNormalization") {
    require(attr_int(node, "training_mode", 0) == 0);
    ValueRef x = input(node, 0);
    require(dims(x).size() >= 2);
    std::vector<ValueRef> inputs{x};
    for (int k = 1; k < 5; ++k) {
      inputs.push_back(input(node, k));
      require(dims(inputs.back()) == ir::Dims{dims(x)[1]});
    }
    add(OpKind::BatchNorm, inputs, {{"epsilon", double{attr_float(node, "epsilon", 1e-5F)}}},
        out());
    return true;
  }
  if (op == "ReduceMean") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    std::optional<std::vector<int64_t>> axes =
        opset >= 18 ? constant_ints(node, 1) : attr_ints(node, "axes");
    if (!axes || axes->empty()) {
      if (opset >= 18 && attr_int(node, "noop_with_empty_axes", 0) == 1) {
        values_[out()] = x;
        return true;
      }
      axes = std::vector<int64_t>{};
      for (int64_t a = 0; a < rank; ++a) axes->push_back(a);
    }
    for (int64_t& a : *axes) a = normalize_axis(a, rank);
    add(OpKind::ReduceMean, {x}, {{"axes", *axes}, {"keepdims", attr_int(node, "keepdims", 1)}},
        out());
    return true;
  }
  return false;
}

}  // namespace saturate::onnx
