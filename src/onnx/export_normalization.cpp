// IR -> ONNX: softmax, normalizations (BatchNormalization, LayerNormalization, ONNX Runtime's
// RMSNorm and residual normalizations), ReduceMean and attention.
#include <string>
#include <vector>

#include "onnx/onnx_exporter.h"

namespace saturate::onnx {

using ir::NodeId;
using ir::OpKind;
using ir::ValueRef;
using ::onnx::NodeProto;

bool Exporter::emit_normalization(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  switch (node.op) {
    case OpKind::BatchNorm: {
      NodeProto& bn = add_node("BatchNormalization", {in(0), in(1), in(2), in(3), in(4)}, {y});
      add_attr(bn, "epsilon", static_cast<float>(attrs.get_float("epsilon")));
      return true;
    }
    case OpKind::Softmax: {
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      if (opset_ >= 13 || axis == rank - 1) {
        NodeProto& softmax = add_node("Softmax", {in(0)}, {y});
        add_attr(softmax, "axis", axis);
        return true;
      }
      // Before opset 13 Softmax works on the flattened trailing axes: move the axis last.
      std::vector<int64_t> perm;
      for (int64_t a = 0; a < rank; ++a) {
        if (a != axis) perm.push_back(a);
      }
      perm.push_back(axis);
      std::vector<int64_t> inverse(static_cast<size_t>(rank));
      for (int64_t a = 0; a < rank; ++a) inverse[static_cast<size_t>(perm[a])] = a;
      std::string moved = fresh(y + "_moved");
      std::string soft = fresh(y + "_softmax");
      add_attr(add_node("Transpose", {in(0)}, {moved}), "perm", perm);
      add_attr(add_node("Softmax", {moved}, {soft}), "axis", rank - 1);
      add_attr(add_node("Transpose", {soft}, {y}), "perm", inverse);
      return true;
    }
    case OpKind::LayerNorm: {
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      auto epsilon = static_cast<float>(attrs.get_float("epsilon"));
      if (opset_ >= 17) {
        NodeProto& ln = add_node("LayerNormalization", {in(0), in(1), in(2)}, {y});
        add_attr(ln, "axis", axis);
        add_attr(ln, "epsilon", epsilon);
        return true;
      }
      std::vector<int64_t> axes;
      for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
      std::string mean = fresh(y + "_mean");
      std::string centred = fresh(y + "_centred");
      std::string square = fresh(y + "_square");
      std::string variance = fresh(y + "_variance");
      std::string shifted = fresh(y + "_variance_eps");
      std::string deviation = fresh(y + "_deviation");
      std::string normal = fresh(y + "_normalized");
      std::string scaled = fresh(y + "_scaled");
      NodeProto& m = add_node("ReduceMean", {in(0)}, {mean});
      add_attr(m, "axes", axes);
      add_node("Sub", {in(0), mean}, {centred});
      add_node("Mul", {centred, centred}, {square});
      NodeProto& v = add_node("ReduceMean", {square}, {variance});
      add_attr(v, "axes", axes);
      add_node("Add",
               {variance, scalar_initializer(epsilon, y + "_epsilon", node.outputs[0].dtype)},
               {shifted});
      add_node("Sqrt", {shifted}, {deviation});
      add_node("Div", {centred, deviation}, {normal});
      add_node("Mul", {normal, in(1)}, {scaled});
      add_node("Add", {scaled, in(2)}, {y});
      return true;
    }
    case OpKind::ReduceMean: {
      const auto& axes = attrs.get_ints("axes");
      std::vector<std::string> inputs{in(0)};
      if (opset_ >= 18) inputs.push_back(ints_initializer(axes, y + "_axes"));
      NodeProto& mean = add_node("ReduceMean", inputs, {y});
      if (opset_ < 18) add_attr(mean, "axes", axes);
      add_attr(mean, "keepdims", attrs.get_int("keepdims"));
      return true;
    }
    case OpKind::Attention: {
      std::string scores = fresh(y + "_scores");
      std::string scaled = fresh(y + "_scaled");
      std::string weights = fresh(y + "_weights");
      auto rank = static_cast<int64_t>(dims(node.inputs[0]).size());
      add_node("MatMul", {in(0), in(1)}, {scores});
      add_node("Div",
               {scores,
                scalar_initializer(attrs.get_float("scale"), y + "_scale", node.outputs[0].dtype)},
               {scaled});
      add_attr(add_node("Softmax", {scaled}, {weights}), "axis", rank - 1);
      add_node("MatMul", {weights, in(2)}, {y});
      return true;
    }
    case OpKind::MultiHeadAttention:
    case OpKind::QkvAttention:
      emit_attention(id);
      return true;
    case OpKind::SkipLayerNorm:
    case OpKind::SkipRMSNorm:
      emit_skip_normalization(id);
      return true;
    case OpKind::RMSNorm: {
      // ONNX Runtime's kernel, in the default domain (as ONNX Runtime declares it).
      auto rank = static_cast<int64_t>(node.outputs[0].dims.size());
      int64_t axis = attrs.get_int("axis");
      if (axis < 0) axis += rank;
      NodeProto& norm = add_node("SimplifiedLayerNormalization", {in(0), in(1)}, {y});
      add_attr(norm, "axis", axis);
      add_attr(norm, "epsilon", static_cast<float>(attrs.get_float("epsilon")));
      return true;
    }
    default:
      return false;
  }
}

// com.microsoft.MultiHeadAttention (q, k, v) or com.microsoft.Attention (x, the packed weight and
// bias; the IR's qkv_attention). Their attention_bias must be (B or 1, N or 1, S, L): a bias that
// broadcasts along the query or key axis (a padding mask (B, 1, 1, L)) is expanded first.
void Exporter::emit_attention(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const std::string& y = names_[id][0];
  const bool packed = node.op == OpKind::QkvAttention;
  std::vector<std::string> inputs{name_of(node.inputs[0]), name_of(node.inputs[1]),
                                  name_of(node.inputs[2])};
  if (node.inputs.size() == 4) {
    const int64_t queries = dims(node.inputs[0])[1];
    const ir::Dims& key = dims(node.inputs[1]);  // (B, L, D), or (B, N, L, H) in heads
    const int64_t keys = packed ? queries : key[key.size() == 4 ? 2 : 1];
    ir::Dims bias = dims(node.inputs[3]);
    while (bias.size() < 4) bias.insert(bias.begin(), 1);
    const ir::Dims wanted{bias[0], bias[1], queries, keys};
    std::string bias_name = name_of(node.inputs[3]);
    if (dims(node.inputs[3]) != wanted) {
      std::string expanded = fresh(y + "_attention_bias");
      add_node("Expand",
               {bias_name, shape_tensor(wanted, id, y + "_bias_shape",
                                        "node '" + node.name() + "' (attention mask)")},
               {expanded});
      bias_name = expanded;
    }
    // MultiHeadAttention: bias, key_padding_mask; Attention: mask_index, past.
    inputs.insert(inputs.end(), {"", "", bias_name});
  }
  NodeProto& mha = add_node(packed ? "Attention" : "MultiHeadAttention", inputs, {y});
  mha.set_domain(std::string(kMicrosoftDomain));
  add_attr(mha, "num_heads", node.attrs.get_int("num_heads"));
  add_attr(mha, "scale", static_cast<float>(node.attrs.get_float("scale")));
  uses_microsoft_domain_ = true;
}

// com.microsoft.SkipLayerNormalization / SkipSimplifiedLayerNormalization: outputs (normalized,
// mean, inverse standard deviation, input + skip); the sum is written only where something reads
// it, the statistics never (the IR has no use for them).
void Exporter::emit_skip_normalization(NodeId id) {
  const ir::Node& node = graph_.node(id);
  std::vector<std::string> inputs;
  for (const ValueRef& input : node.inputs) inputs.push_back(name_of(input));
  std::vector<std::string> outputs{names_[id][0]};
  if (is_read({id, 1})) outputs.insert(outputs.end(), {"", "", names_[id][1]});
  bool simplified = node.op == OpKind::SkipRMSNorm;
  NodeProto& norm = add_node(
      simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization", inputs, outputs);
  norm.set_domain(std::string(kMicrosoftDomain));
  add_attr(norm, "epsilon", static_cast<float>(node.attrs.get_float("epsilon")));
  uses_microsoft_domain_ = true;
}

bool Exporter::is_read(ValueRef value) const {
  for (const ir::GraphOutput& output : graph_.outputs()) {
    if (resolve(output.value) == value) return true;
  }
  for (ir::NodeId id = 0; id < graph_.num_nodes(); ++id) {
    if (!needed_[id] || is_alias(graph_.node(id))) continue;
    for (const ValueRef& input : graph_.node(id).inputs) {
      if (resolve(input) == value) return true;
    }
  }
  return false;
}

}  // namespace saturate::onnx
