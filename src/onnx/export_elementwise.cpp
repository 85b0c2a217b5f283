// IR -> ONNX: the element-wise operators that are not one ONNX node of the same inputs (those
// the registry maps, ir::onnx_operator, are written by Exporter::emit_one_node), and fused
// activations.
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/onnx_exporter.h"
#include "support/error.h"

namespace saturate::onnx {

std::string_view activation_op(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::None:
      return "";
    case ir::Activation::Sigmoid:
      return "Sigmoid";
    case ir::Activation::Relu:
      return "Relu";
    case ir::Activation::Tanh:
      return "Tanh";
    case ir::Activation::Clip:
      return "Clip";
    case ir::Activation::LeakyRelu:
      return "LeakyRelu";
    case ir::Activation::HardSigmoid:
      return "HardSigmoid";
  }
  return "";
}

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

bool Exporter::emit_elementwise(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  const ir::DType dtype = node.outputs[0].dtype;
  switch (node.op) {
    case OpKind::Gelu: {
      if (opset_ >= 20) {
        add_node("Gelu", {in(0)}, {y});
        return true;
      }
      std::string scaled = fresh(y + "_div_sqrt2");
      std::string erf = fresh(y + "_erf");
      std::string shifted = fresh(y + "_erf_plus_1");
      std::string product = fresh(y + "_times_x");
      add_node("Div", {in(0), scalar_initializer(std::sqrt(2.0), y + "_sqrt2", dtype)}, {scaled});
      add_node("Erf", {scaled}, {erf});
      add_node("Add", {erf, scalar_initializer(1.0, y + "_one", dtype)}, {shifted});
      add_node("Mul", {in(0), shifted}, {product});
      add_node("Mul", {product, scalar_initializer(0.5, y + "_half", dtype)}, {y});
      return true;
    }
    case OpKind::FastGelu:
      // Reached at opset 20 and later only (emit_one_node writes com.microsoft.FastGelu before
      // that). From opset 20 ONNX has the kernel itself, which ONNX Runtime runs as fast as its
      // com.microsoft.FastGelu (measured equal, same values); a standard operator also keeps
      // `--target onnx` output standard where import read a Gelu(approximate="tanh").
      add_attr(add_node("Gelu", {in(0)}, {y}), "approximate", std::string("tanh"));
      return true;
    case OpKind::Clip: {
      double low = attrs.get_float("min");
      double high = attrs.get_float("max");
      std::vector<std::string> inputs{in(0)};
      bool has_low = low > std::numeric_limits<float>::lowest();
      bool has_high = high < std::numeric_limits<float>::max();
      inputs.push_back(has_low ? scalar_initializer(low, y + "_min", dtype) : "");
      if (has_high) inputs.push_back(scalar_initializer(high, y + "_max", dtype));
      if (!has_high && !has_low) inputs.pop_back();
      add_node("Clip", inputs, {y});
      return true;
    }
    case OpKind::LeakyRelu:
      add_attr(add_node("LeakyRelu", {in(0)}, {y}), "alpha",
               static_cast<float>(attrs.get_float("alpha")));
      return true;
    case OpKind::HardSigmoid: {
      NodeProto& hard = add_node("HardSigmoid", {in(0)}, {y});
      add_attr(hard, "alpha", static_cast<float>(attrs.get_float("alpha")));
      add_attr(hard, "beta", static_cast<float>(attrs.get_float("beta")));
      return true;
    }
    case OpKind::QuickGelu: {
      NodeProto& gelu = add_node("QuickGelu", {in(0)}, {y});
      gelu.set_domain(std::string(kMicrosoftDomain));
      add_attr(gelu, "alpha", static_cast<float>(attrs.get_float("alpha")));
      uses_microsoft_domain_ = true;
      return true;
    }
    case OpKind::RotaryEmbedding:
      emit_rotary_embedding(id);
      return true;
    default:
      return false;
  }
}

std::string Exporter::pre_activation(NodeId id) {
  const std::string& y = names_[id][0];
  ir::Activation activation = graph_.node(id).attrs.get_activation();
  return activation == ir::Activation::None ? y : fresh(y + "_pre");
}

void Exporter::emit_activation(const std::string& pre, const std::string& out,
                               ir::Activation activation) {
  if (activation == ir::Activation::None) return;
  // Only fused_conv carries an activation's parameters, and it writes them itself.
  if (ir::has_parameters(activation)) {
    throw Error("cannot write the fused activation " + std::string(ir::to_string(activation)) +
                " without its parameters");
  }
  add_node(std::string(activation_op(activation)), {pre}, {out});
}

}  // namespace saturate::onnx
