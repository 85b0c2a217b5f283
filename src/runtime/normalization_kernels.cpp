// Normalizations and reductions: batchnorm, softmax, layernorm, rms_norm, the skip (residual)
// normalizations, reduce_mean.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/index_math.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

Tensor batchnorm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                 const Tensor& var, double epsilon) {
  const int64_t channels = x.dims[1];
  const int64_t inner = detail::product(x.dims, 2, x.dims.size());  // elements per channel
  Tensor out(x.dims);
  for (size_t i = 0; i < x.data.size(); ++i) {
    const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    out.data[i] = (x.data[i] - mean.data[c]) / std::sqrt(var.data[c] + epsilon) * scale.data[c] +
                  bias.data[c];
  }
  return out;
}

Tensor softmax(const Tensor& x, int64_t axis) {
  const auto a = static_cast<size_t>(detail::normalize_axis(axis, x.rank()));
  const int64_t outer = detail::product(x.dims, 0, a);
  const int64_t length = x.dims[a];
  const int64_t inner = detail::product(x.dims, a + 1, x.dims.size());
  Tensor out(x.dims);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      // The elements of one softmax, `inner` apart.
      const int64_t base = o * length * inner + in;
      auto at = [&](int64_t k) { return static_cast<size_t>(base + k * inner); };
      // Subtracting the maximum keeps exp() from overflowing without changing the result.
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < length; ++k) top = std::max(top, x.data[at(k)]);
      double sum = 0.0;
      for (int64_t k = 0; k < length; ++k) {
        out.data[at(k)] = std::exp(x.data[at(k)] - top);
        sum += out.data[at(k)];
      }
      for (int64_t k = 0; k < length; ++k) out.data[at(k)] /= sum;
    }
  }
  return out;
}

Tensor layernorm(const Tensor& x, const Tensor& scale, const Tensor& bias, int64_t axis,
                 double epsilon) {
  const auto a = static_cast<size_t>(detail::normalize_axis(axis, x.rank()));
  const int64_t outer = detail::product(x.dims, 0, a);
  const int64_t group = detail::product(x.dims, a, x.dims.size());  // normalized together
  const auto count = static_cast<double>(group);
  Tensor out(x.dims);
  for (int64_t o = 0; o < outer; ++o) {
    const double* src = x.data.data() + o * group;
    double* dst = out.data.data() + o * group;
    double mean = 0.0;
    for (int64_t k = 0; k < group; ++k) mean += src[k];
    mean /= count;
    // Population variance (divide by n), as in PyTorch and ONNX.
    double variance = 0.0;
    for (int64_t k = 0; k < group; ++k) variance += (src[k] - mean) * (src[k] - mean);
    variance /= count;
    const double inv_std = 1.0 / std::sqrt(variance + epsilon);
    for (int64_t k = 0; k < group; ++k) {
      const auto j = static_cast<size_t>(k);
      dst[k] = (src[k] - mean) * inv_std * scale.data[j] + bias.data[j];
    }
  }
  return out;
}

Tensor rms_norm(const Tensor& x, const Tensor& scale, int64_t axis, double epsilon) {
  const auto a = static_cast<size_t>(detail::normalize_axis(axis, x.rank()));
  const int64_t outer = detail::product(x.dims, 0, a);
  const int64_t group = detail::product(x.dims, a, x.dims.size());  // normalized together
  Tensor out(x.dims);
  for (int64_t o = 0; o < outer; ++o) {
    const double* src = x.data.data() + o * group;
    double* dst = out.data.data() + o * group;
    double square_sum = 0.0;
    for (int64_t k = 0; k < group; ++k) square_sum += src[k] * src[k];
    const double inv_rms = 1.0 / std::sqrt(square_sum / static_cast<double>(group) + epsilon);
    for (int64_t k = 0; k < group; ++k)
      dst[k] = src[k] * inv_rms * scale.data[static_cast<size_t>(k)];
  }
  return out;
}

namespace {

// x + skip, skip of x's shape or (1, S, D) for x (B, S, D) (the shape check guarantees one of
// them): a batch row's offset modulo skip's size is its position in skip.
Tensor residual_sum(const Tensor& x, const Tensor& skip) {
  Tensor sum(x.dims);
  const size_t row = skip.data.size();
  if (row == 0) return sum;
  for (size_t i = 0; i < x.data.size(); ++i) sum.data[i] = x.data[i] + skip.data[i % row];
  return sum;
}

}  // namespace

std::vector<Tensor> skip_layer_norm(const Tensor& x, const Tensor& skip, const Tensor& scale,
                                    const Tensor& bias, double epsilon) {
  Tensor sum = residual_sum(x, skip);
  Tensor normalized = layernorm(sum, scale, bias, -1, epsilon);
  return {std::move(normalized), std::move(sum)};
}

std::vector<Tensor> skip_rms_norm(const Tensor& x, const Tensor& skip, const Tensor& scale,
                                  double epsilon) {
  Tensor sum = residual_sum(x, skip);
  Tensor normalized = rms_norm(sum, scale, -1, epsilon);
  return {std::move(normalized), std::move(sum)};
}

Tensor reduce_mean(const Tensor& x, const std::vector<int64_t>& axes, const ir::Dims& out_dims) {
  // Strides of the result seen with keepdims (reduced axes of extent 1, stride 0): the same
  // row-major layout whether or not the axes are kept.
  ir::Dims kept = x.dims;
  for (int64_t axis : axes) kept[static_cast<size_t>(detail::normalize_axis(axis, x.rank()))] = 1;
  std::vector<int64_t> strides = detail::broadcast_strides(kept, x.dims);
  const int64_t reduced = x.num_elements() / detail::product(kept);

  Tensor out(out_dims);
  if (x.data.empty()) return out;
  std::vector<int64_t> index(x.dims.size(), 0);
  size_t flat = 0;
  do {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    out.data[static_cast<size_t>(offset)] += x.data[flat++];
  } while (detail::next_index(index, x.dims));
  for (double& v : out.data) v /= static_cast<double>(reduced);
  return out;
}

}  // namespace saturate::runtime::kernels
