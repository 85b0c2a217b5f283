// Element-wise operators: unary math, clip, broadcasting binary arithmetic, fused activations.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "ir/op_registry.h"
#include "runtime/index_math.h"
#include "runtime/kernels.h"
#include "support/error.h"

namespace saturate::runtime::kernels {
namespace {

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// The exact (erf-based) GELU, not the tanh approximation.
double gelu(double x) {
  return x * (1.0 + std::erf(x / std::numbers::sqrt2)) / 2.0;
}

// GPT-2's tanh approximation of GELU (ONNX Runtime's FastGelu).
double fast_gelu(double x) {
  const double sqrt_2_over_pi = std::numbers::sqrt2 / std::sqrt(std::numbers::pi);
  return x * (1.0 + std::tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x))) / 2.0;
}

double apply_unary(ir::OpKind op, double x) {
  switch (op) {
    case ir::OpKind::Relu:
      return x < 0.0 ? 0.0 : x;  // NaN passes through, as in numpy
    case ir::OpKind::Tanh:
      return std::tanh(x);
    case ir::OpKind::Sigmoid:
      return sigmoid(x);
    case ir::OpKind::Sqrt:
      return std::sqrt(x);
    case ir::OpKind::Erf:
      return std::erf(x);
    case ir::OpKind::Exp:
      return std::exp(x);
    case ir::OpKind::Gelu:
      return gelu(x);
    case ir::OpKind::FastGelu:
      return fast_gelu(x);
    default:
      throw Error("unary kernel called for " + std::string(ir::to_string(op)));
  }
}

double apply_binary(ir::OpKind op, double a, double b) {
  switch (op) {
    case ir::OpKind::EwAdd:
    case ir::OpKind::Add:
      return a + b;
    case ir::OpKind::EwMul:
    case ir::OpKind::Mul:
      return a * b;
    case ir::OpKind::Sub:
      return a - b;
    case ir::OpKind::Div:
      return a / b;
    case ir::OpKind::Pow:
      return std::pow(a, b);
    default:
      throw Error("binary kernel called for " + std::string(ir::to_string(op)));
  }
}

}  // namespace

Tensor unary(ir::OpKind op, const Tensor& x) {
  Tensor out(x.dims);
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = apply_unary(op, x.data[i]);
  return out;
}

Tensor bias_gelu(const Tensor& x, const Tensor& bias) {
  if (x.dims.empty() || bias.dims.size() != 1 || bias.dims[0] != x.dims.back()) {
    throw Error("bias_gelu: the bias must be one value per element of the last axis");
  }
  Tensor out(x.dims);
  const size_t width = bias.data.size();
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = gelu(x.data[i] + bias.data[i % width]);
  return out;
}

Tensor quick_gelu(const Tensor& x, double alpha) {
  Tensor out(x.dims);
  for (size_t i = 0; i < x.data.size(); ++i) out.data[i] = x.data[i] * sigmoid(alpha * x.data[i]);
  return out;
}

Tensor binary(ir::OpKind op, const Tensor& a, const Tensor& b, const ir::Dims& out_dims) {
  Tensor out(out_dims);
  if (out.data.empty()) return out;
  std::vector<int64_t> stride_a = detail::broadcast_strides(a.dims, out_dims);
  std::vector<int64_t> stride_b = detail::broadcast_strides(b.dims, out_dims);
  std::vector<int64_t> index(out_dims.size(), 0);
  size_t flat = 0;
  do {
    int64_t offset_a = 0;
    int64_t offset_b = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      offset_a += index[d] * stride_a[d];
      offset_b += index[d] * stride_b[d];
    }
    out.data[flat++] = apply_binary(op, a.data[static_cast<size_t>(offset_a)],
                                    b.data[static_cast<size_t>(offset_b)]);
  } while (detail::next_index(index, out_dims));
  return out;
}

void activate(Tensor& t, const FusedActivation& activation) {
  const double alpha = activation.alpha;
  const double beta = activation.beta;
  switch (activation.kind) {
    case ir::Activation::None:
      return;
    case ir::Activation::Sigmoid:
      for (double& v : t.data) v = sigmoid(v);
      return;
    case ir::Activation::Relu:
      for (double& v : t.data) v = v < 0.0 ? 0.0 : v;
      return;
    case ir::Activation::Tanh:
      for (double& v : t.data) v = std::tanh(v);
      return;
    case ir::Activation::Clip:
      for (double& v : t.data) v = std::min(std::max(v, alpha), beta);
      return;
    case ir::Activation::LeakyRelu:
      for (double& v : t.data) v = v < 0.0 ? alpha * v : v;
      return;
    case ir::Activation::HardSigmoid:
      for (double& v : t.data) v = std::max(0.0, std::min(1.0, alpha * v + beta));
      return;
  }
  throw Error("unknown fused activation code " +
              std::to_string(static_cast<int64_t>(activation.kind)));
}

Tensor activated(const Tensor& x, const FusedActivation& activation) {
  Tensor out = x;
  activate(out, activation);
  return out;
}

}  // namespace saturate::runtime::kernels
