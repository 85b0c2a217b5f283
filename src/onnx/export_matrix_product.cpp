// IR -> ONNX: matrix products (MatMul, with its fused activation; ONNX Runtime's FusedMatMul).
#include <string>

#include "onnx/onnx_exporter.h"

namespace saturate::onnx {

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

bool Exporter::emit_matrix_product(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  switch (node.op) {
    case OpKind::MatMul: {
      std::string pre = pre_activation(id);
      add_node("MatMul", {in(0), in(1)}, {pre});
      emit_activation(pre, y, attrs.get_activation());
      return true;
    }
    case OpKind::FusedMatMul: {
      NodeProto& product = add_node("FusedMatMul", {in(0), in(1)}, {y});
      product.set_domain(std::string(kMicrosoftDomain));
      add_attr(product, "alpha", static_cast<float>(attrs.get_float("alpha")));
      add_attr(product, "transA", attrs.get_int("trans_a"));
      add_attr(product, "transB", attrs.get_int("trans_b"));
      uses_microsoft_domain_ = true;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace saturate::onnx
