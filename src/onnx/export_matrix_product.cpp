// IR -> ONNX: matrix products (MatMul, with its fused activation).
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
    default:
      return false;
  }
}

}  // namespace saturate::onnx
