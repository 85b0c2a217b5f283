// ONNX Runtime's MultiHeadAttention in the reference interpreter: per batch and head, the
// scores q_h k_h^T * scale + bias, a softmax over the keys and the product with v_h, in double
// precision (a fused kernel keeps its scores unrounded too). Keys and values split into heads
// already, (B, N, L, H), are merged first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/index_math.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

namespace {

// (B, N, L, H) heads as (B, L, N H): the layout the loops below read.
Tensor merged_heads(const Tensor& x) {
  Tensor moved = transpose(x, {0, 2, 1, 3});
  return reshape(moved, {x.dims[0], x.dims[2], x.dims[1] * x.dims[3]});
}

}  // namespace

Tensor multi_head_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* bias,
                            int64_t heads, double scale) {
  if (k.dims.size() == 4) {
    return multi_head_attention(q, merged_heads(k), merged_heads(v), bias, heads, scale);
  }
  const int64_t batch = q.dims[0];
  const int64_t queries = q.dims[1];
  const int64_t keys = k.dims[1];
  const int64_t head_size = q.dims[2] / heads;
  const int64_t value_size = v.dims[2] / heads;
  const ir::Dims score_dims{batch, heads, queries, keys};
  std::vector<int64_t> bias_strides;
  if (bias != nullptr) bias_strides = detail::broadcast_strides(bias->dims, score_dims);
  Tensor out({batch, queries, v.dims[2]});
  std::vector<double> scores(static_cast<size_t>(keys));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < queries; ++i) {
        const double* qi =
            &q.data[static_cast<size_t>((b * queries + i) * q.dims[2] + h * head_size)];
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < keys; ++j) {
          const double* kj =
              &k.data[static_cast<size_t>((b * keys + j) * k.dims[2] + h * head_size)];
          double dot = 0.0;
          for (int64_t d = 0; d < head_size; ++d) dot += qi[d] * kj[d];
          double score = dot * scale;
          if (bias != nullptr) {
            int64_t at = b * bias_strides[0] + h * bias_strides[1] + i * bias_strides[2] +
                         j * bias_strides[3];
            score += bias->data[static_cast<size_t>(at)];
          }
          scores[static_cast<size_t>(j)] = score;
          top = std::max(top, score);
        }
        double sum = 0.0;
        for (double& score : scores) {
          score = std::exp(score - top);
          sum += score;
        }
        double* oi = &out.data[static_cast<size_t>((b * queries + i) * v.dims[2] + h * value_size)];
        for (int64_t j = 0; j < keys; ++j) {
          const double weight = scores[static_cast<size_t>(j)] / sum;
          const double* vj =
              &v.data[static_cast<size_t>((b * keys + j) * v.dims[2] + h * value_size)];
          for (int64_t e = 0; e < value_size; ++e) oi[e] += weight * vj[e];
        }
      }
    }
  }
  return out;
}

Tensor qkv_attention(const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const Tensor* attention_bias, int64_t heads, double scale) {
  const int64_t hidden = weight.dims[1] / 3;
  const ir::Dims packed{x.dims[0], x.dims[1], 3 * hidden};
  Tensor projected = binary(ir::OpKind::Add, matmul(x, weight, packed), bias, packed);
  std::vector<Tensor> qkv = split(projected, 2, {hidden, hidden, hidden});
  return multi_head_attention(qkv[0], qkv[1], qkv[2], attention_bias, heads, scale);
}

}  // namespace saturate::runtime::kernels
