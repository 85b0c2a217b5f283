#pragma once

#include <cstdint>

namespace saturate::ir {

// Every operator the IR knows. The registry (op_registry.h) holds each one's signature,
// shape inference and description; the text form uses the registry's names.
enum class OpKind : uint16_t {
  // Leaves.
  Input,
  Weight,
  Constant,
  // TENSAT's set.
  EwAdd,
  EwMul,
  MatMul,
  Conv2d,
  Relu,
  Tanh,
  Sigmoid,
  PoolMax,
  PoolAvg,
  Transpose,
  Enlarge,
  Concat,
  Split,
  Merge,
  Reshape,
  BatchNorm,
  Noop,
  // What transformer-like models need.
  Add,
  Mul,
  Sub,
  Div,
  Pow,
  Sqrt,
  Erf,
  Exp,
  Gelu,
  Clip,
  LeakyRelu,
  HardSigmoid,
  Softmax,
  LayerNorm,
  ReduceMean,
  // Fused scaled dot-product attention (what PyPM's attention rule produces).
  Attention,
  // ONNX Runtime's com.microsoft.MultiHeadAttention: heads split from and merged back into the
  // hidden axis inside the kernel (what PyPM's ONNX Runtime library fuses into).
  MultiHeadAttention,
  // ONNX Runtime's com.microsoft.Attention: self-attention with the query, key and value
  // projections of one input in the kernel, their weights packed into one (D_in, 3 D) matrix.
  QkvAttention,
  // Root-mean-square normalization (RMSNorm, Llama's): ONNX Runtime's
  // SimplifiedLayerNormalization.
  RMSNorm,
  // ONNX Runtime's GELU-family kernels: BiasGelu (gelu(x + bias), exact erf form), FastGelu
  // (the tanh approximation) and QuickGelu (x * sigmoid(alpha * x); SiLU is alpha 1).
  BiasGelu,
  FastGelu,
  QuickGelu,
  // ONNX Runtime's residual normalizations: the sum x + skip normalized (SkipLayerNormalization,
  // SkipSimplifiedLayerNormalization), with the sum as a second output for the residual stream.
  SkipLayerNorm,
  SkipRMSNorm,
  // ONNX Runtime's RotaryEmbedding in the rotate-half form (Llama's): x * cos + rotate_half(x) *
  // sin, with the position tables given in full.
  RotaryEmbedding,
  // ONNX Runtime's FusedConv: a convolution with its bias, an optional residual sum and an
  // activation in one kernel.
  FusedConv,
  // ONNX Runtime's FusedMatMul: a product with its operands' transposes and a scale folded in.
  FusedMatMul,
  // What ONNX import needs: explicit constant padding (ONNX Conv/Pool pads that are neither
  // SAME nor VALID), a contiguous slice of one axis (ONNX Slice with constant bounds), and any
  // ONNX operator Saturate does not know, carried through unchanged.
  Pad,
  Slice,
  Opaque,
};

inline constexpr int kNumOpKinds = static_cast<int>(OpKind::Opaque) + 1;

}  // namespace saturate::ir
