// ONNX -> IR: element-wise operators and activations, and the aliases (Identity, Dropout, a
// Cast to the same type).
#include <limits>
#include <string>
#include <unordered_map>

#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"

namespace saturate::onnx {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::NodeProto;

bool Importer::import_elementwise(const NodeProto& node) {
  const std::string& op = node.op_type();
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  static const std::unordered_map<std::string, OpKind> unary = {
      {"Relu", OpKind::Relu}, {"Sigmoid", OpKind::Sigmoid}, {"Tanh", OpKind::Tanh},
      {"Erf", OpKind::Erf},   {"Sqrt", OpKind::Sqrt},       {"Exp", OpKind::Exp}};
  if (auto it = unary.find(op); it != unary.end()) {
    ValueRef x = input(node, 0);
    add(it->second, {x}, {}, out());
    return true;
  }
  static const std::unordered_map<std::string, OpKind> binary = {{"Add", OpKind::Add},
                                                                 {"Mul", OpKind::Mul},
                                                                 {"Sub", OpKind::Sub},
                                                                 {"Div", OpKind::Div},
                                                                 {"Pow", OpKind::Pow}};
  if (auto it = binary.find(op); it != binary.end()) {
    ValueRef a = input(node, 0);
    ValueRef b = input(node, 1);
    OpKind kind = it->second;
    // Equal shapes take TENSAT's element-wise operators, which its rules are written for.
    if (dims(a) == dims(b) && kind == OpKind::Add) kind = OpKind::EwAdd;
    if (dims(a) == dims(b) && kind == OpKind::Mul) kind = OpKind::EwMul;
    add(kind, {a, b}, {}, out());
    return true;
  }
  if (op == "Identity" || op == "Dropout" || is_same_type_cast(node)) {
    // Aliases of a value of any type.
    require(has_input(node, 0));
    const std::string& name = node.input(0);
    if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      other_constants_[out()] = other->second;
    } else if (auto value = values_.find(name); value != values_.end()) {
      values_[out()] = value->second;
    } else {
      input(node, 0);  // the unknown-name error
    }
    return true;
  }
  if (op == "Gelu") {
    // Opset 20's Gelu: the exact (erf) form, or the tanh approximation, which is what the IR's
    // fast_gelu computes (export writes it back as this Gelu at opset 20 and later).
    const std::string approximate = attr_string(node, "approximate", "none");
    require(approximate == "none" || approximate == "tanh");
    add(approximate == "none" ? OpKind::Gelu : OpKind::FastGelu, {input(node, 0)}, {}, out());
    return true;
  }
  if (op == "Clip") {
    import_clip(node);
    return true;
  }
  if (op == "LeakyRelu") {
    add(OpKind::LeakyRelu, {input(node, 0)}, {{"alpha", attr_float(node, "alpha", 0.01f)}}, out());
    return true;
  }
  if (op == "HardSigmoid") {
    add(OpKind::HardSigmoid, {input(node, 0)},
        {{"alpha", attr_float(node, "alpha", 0.2f)}, {"beta", attr_float(node, "beta", 0.5f)}},
        out());
    return true;
  }
  return false;
}

// A Cast to the element type its input already has (the TorchScript exporter writes one around
// every `.to(torch.float32)` of a float model) is the identity.
bool Importer::is_same_type_cast(const NodeProto& node) const {
  if (node.op_type() != "Cast" || !is_default_domain(node.domain()) || !has_input(node, 0)) {
    return false;
  }
  auto type = elem_type_of(node.input(0));
  return type && attr_int(node, "to", -1) == *type;
}

void Importer::import_clip(const NodeProto& node) {
  ValueRef x = input(node, 0);
  // Absent bounds are the float range, which export leaves out again.
  double low = std::numeric_limits<float>::lowest();
  double high = std::numeric_limits<float>::max();
  if (auto min = constant_scalar(node, 1)) low = *min;
  if (auto max = constant_scalar(node, 2)) high = *max;
  require(low <= high);
  add(OpKind::Clip, {x}, {{"min", low}, {"max", high}}, node.output(0));
}

}  // namespace saturate::onnx
