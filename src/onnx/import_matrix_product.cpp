// ONNX -> IR: matrix products (MatMul, Gemm).
#include <optional>
#include <string>
#include <vector>

#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"

namespace saturate::onnx {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::NodeProto;

bool Importer::import_matrix_product(const NodeProto& node) {
  const std::string& op = node.op_type();
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  if (op == "Gemm") {
    import_gemm(node);
    return true;
  }
  if (op == "MatMul") {
    ValueRef a = input(node, 0);
    ValueRef b = input(node, 1);
    require(dims(a).size() >= 2 && dims(b).size() >= 2);
    add(OpKind::MatMul, {a, b}, {}, out());
    return true;
  }
  return false;
}

void Importer::import_gemm(const NodeProto& node) {
  ValueRef a = input(node, 0);
  ValueRef b = input(node, 1);
  require(dims(a).size() == 2 && dims(b).size() == 2);
  std::optional<ValueRef> c;
  if (has_input(node, 2)) c = input(node, 2);
  const double alpha = attr_float(node, "alpha", 1.0F);
  const double beta = attr_float(node, "beta", 1.0F);
  const std::string& name = node.output(0);
  const std::vector<int64_t> swap{1, 0};
  if (attr_int(node, "transA", 0) != 0) {
    a = add(OpKind::Transpose, {a}, {{"perm", swap}}, fresh(name + "_a_t"));
  }
  if (attr_int(node, "transB", 0) != 0) {
    b = add(OpKind::Transpose, {b}, {{"perm", swap}}, fresh(name + "_b_t"));
  }
  bool last = !c && alpha == 1.0;
  ValueRef y = add(OpKind::MatMul, {a, b}, {}, last ? name : fresh(name + "_matmul"));
  if (alpha != 1.0) {
    y = add(OpKind::Mul, {y, add_constant(alpha, name + "_alpha", graph().type(y).dtype)}, {},
            !c ? name : fresh(name + "_scaled"));
  }
  if (!c) return;
  ValueRef bias = *c;
  if (beta != 1.0) {
    bias = add(OpKind::Mul, {bias, add_constant(beta, name + "_beta", graph().type(bias).dtype)},
               {}, fresh(name + "_bias_scaled"));
  }
  add(dims(y) == dims(bias) ? OpKind::EwAdd : OpKind::Add, {y, bias}, {}, name);
}

}  // namespace saturate::onnx
