#pragma once

// The operator kernels of the reference interpreter (internal header). Each takes its inputs
// and the output dims the graph inferred, computes in double precision with plain loops, and
// leaves float32 rounding to the interpreter. Inputs are assumed to be shape-checked already
// (Interpreter::evaluate re-runs shape inference before calling a kernel).

#include <cstdint>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "runtime/tensor.h"

namespace saturate::runtime::kernels {

// elementwise_kernels.cpp
// relu, tanh, sigmoid, sqrt, erf, exp, gelu, fast_gelu.
Tensor unary(ir::OpKind op, const Tensor& x);
// gelu(x + bias), bias along the last axis (ONNX Runtime's BiasGelu).
Tensor bias_gelu(const Tensor& x, const Tensor& bias);
// x * sigmoid(alpha * x) (ONNX Runtime's QuickGelu; SiLU is alpha 1).
Tensor quick_gelu(const Tensor& x, double alpha);
// ewadd, ewmul, sub, div, pow with numpy broadcasting to out_dims.
Tensor binary(ir::OpKind op, const Tensor& a, const Tensor& b, const ir::Dims& out_dims);
// A fused activation with its parameters (clip: min alpha, max beta; leaky_relu: alpha;
// hard_sigmoid: alpha, beta; the others take none).
struct FusedActivation {
  ir::Activation kind = ir::Activation::None;
  double alpha = 0.0;
  double beta = 0.0;
};
// The fused activation of matmul, conv2d, fused_conv and the pools, in place; the standalone
// leaky_relu and hard_sigmoid operators run it too.
void activate(Tensor& t, const FusedActivation& activation);
// A copy of x with the activation applied: the standalone clip, leaky_relu and hard_sigmoid.
Tensor activated(const Tensor& x, const FusedActivation& activation);

// matmul_kernel.cpp
// Product over the last two axes; batch axes broadcast to out_dims.
Tensor matmul(const Tensor& a, const Tensor& b, const ir::Dims& out_dims);
// alpha * op(a) op(b), op swapping the last two axes where asked (ONNX Runtime's FusedMatMul).
Tensor fused_matmul(const Tensor& a, const Tensor& b, double alpha, bool trans_a, bool trans_b,
                    const ir::Dims& out_dims);

// window_kernels.cpp
struct Window {
  int64_t kernel_h = 1;
  int64_t kernel_w = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  ir::Padding padding = ir::Padding::Same;
};
// Padding before the first element along one axis (SAME puts any odd extra at the end).
int64_t pad_before(int64_t size, int64_t out, int64_t kernel, int64_t stride, ir::Padding padding);
// NCHW input, OIHW weight, groups = C / weight dim 1. The window's kernel comes from the weight.
Tensor conv2d(const Tensor& x, const Tensor& w, const Window& window, const ir::Dims& out_dims);
// activation(conv2d(x, w) + bias + sum): bias one value per output channel (any shape holding
// them in order), sum (optional) of the output's shape.
Tensor fused_conv(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor* sum,
                  const Window& window, const FusedActivation& activation,
                  const ir::Dims& out_dims);
Tensor pool_max(const Tensor& x, const Window& window, const ir::Dims& out_dims);
Tensor pool_avg(const Tensor& x, const Window& window, const ir::Dims& out_dims);

// layout_kernels.cpp
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm);
Tensor enlarge(const Tensor& kernel, const ir::Dims& out_dims);
Tensor concat(const std::vector<const Tensor*>& parts, int64_t axis);
std::vector<Tensor> split(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes);
Tensor merge(const Tensor& w, int64_t count);
Tensor reshape(const Tensor& x, const ir::Dims& out_dims);
// Elements [start, end) of one axis.
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end);
// Zero padding; pads in ONNX order [x1_begin, ..., x1_end, ...].
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const ir::Dims& out_dims);

// rotary_embedding_kernel.cpp: x * cos + rotate_half(x) * sin over the last axis of x
// (B, N, S, H); cos and sin (S, H), leading 1s allowed.
Tensor rotary_embedding(const Tensor& x, const Tensor& cos, const Tensor& sin);

// normalization_kernels.cpp
Tensor batchnorm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                 const Tensor& var, double epsilon);
Tensor softmax(const Tensor& x, int64_t axis);
Tensor layernorm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t axis,
                 double epsilon);
// x / sqrt(mean(x^2) + epsilon) * scale over the axes from `axis` to the last.
Tensor rms_norm(const Tensor& x, const Tensor& scale, int64_t axis, double epsilon);
// {layernorm(x + skip), x + skip} over the last axis (ONNX Runtime's SkipLayerNormalization).
std::vector<Tensor> skip_layer_norm(const Tensor& x, const Tensor& skip, const Tensor& scale,
                                    const Tensor& bias, double epsilon);
// {rms_norm(x + skip), x + skip} over the last axis (SkipSimplifiedLayerNormalization).
std::vector<Tensor> skip_rms_norm(const Tensor& x, const Tensor& skip, const Tensor& scale,
                                  double epsilon);
Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes, const ir::Dims& out_dims);

// attention_kernel.cpp
// softmax(q k / scale) v, composed from the matmul and softmax kernels.
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                 const ir::Dims& out_dims);

// multi_head_attention_kernel.cpp
// q (B, S, D), k (B, L, D), v (B, L, Dv), bias (optional) broadcasting to (B, heads, S, L).
Tensor multi_head_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                            int64_t heads, double scale);
// multi_head_attention of [q k v] = x weight + bias: x (B, S, Din), weight (Din, 3 D), bias (3 D)
// (ONNX Runtime's Attention).
Tensor qkv_attention(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const Tensor* attention_bias, int64_t heads, double scale);

}  // namespace saturate::runtime::kernels
