// Fused attention in the reference interpreter: the same arithmetic as the decomposed graph
// (matmul, divide by the scale, softmax over the last axis, matmul), without rounding the
// intermediate scores to float32, which is what a fused kernel does too.
#include "ir/op_registry.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                 const ir::Dims& out_dims) {
  ir::Dims score_dims =
      ir::infer_types(
          ir::OpKind::MatMul,
          {ir::TensorType{ir::DType::F64, q.dims}, ir::TensorType{ir::DType::F64, k.dims}}, {})
          .front()
          .dims;
  Tensor scores = matmul(q, k, score_dims);
  for (double& value : scores.data) value /= scale;
  return matmul(softmax(scores, -1), v, out_dims);
}

}  // namespace saturate::runtime::kernels
