// Batched matrix product with numpy broadcasting of the batch axes.
#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/index_math.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

Tensor matmul(const Tensor& a, const Tensor& b, const ir::Dims& out_dims) {
  const size_t rank = out_dims.size();
  const int64_t m = out_dims[rank - 2];
  const int64_t n = out_dims[rank - 1];
  const int64_t k_size = a.dims.back();
  Tensor out(out_dims);
  if (out.data.empty()) return out;

  // Walk the output's batch axes; each operand's batch offset (in whole matrices) comes from
  // broadcast strides over its own batch axes.
  ir::Dims batch(out_dims.begin(), out_dims.end() - 2);
  ir::Dims batch_a(a.dims.begin(), a.dims.end() - 2);
  ir::Dims batch_b(b.dims.begin(), b.dims.end() - 2);
  std::vector<int64_t> stride_a = detail::broadcast_strides(batch_a, batch);
  std::vector<int64_t> stride_b = detail::broadcast_strides(batch_b, batch);
  const int64_t matrix_a = m * k_size;
  const int64_t matrix_b = k_size * n;

  std::vector<int64_t> index(batch.size(), 0);
  int64_t batch_number = 0;
  std::vector<double> row(static_cast<size_t>(n));
  do {
    int64_t base_a = 0;
    int64_t base_b = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      base_a += index[d] * stride_a[d];
      base_b += index[d] * stride_b[d];
    }
    const double* pa = a.data.data() + base_a * matrix_a;
    const double* pb = b.data.data() + base_b * matrix_b;
    double* po = out.data.data() + batch_number * m * n;
    for (int64_t i = 0; i < m; ++i) {
      // i-k-j order keeps reads contiguous; each output element still sums over k in order.
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t k = 0; k < k_size; ++k) {
        const double left = pa[i * k_size + k];
        const double* right = pb + k * n;
        for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] += left * right[j];
      }
      std::copy(row.begin(), row.end(), po + i * n);
    }
    ++batch_number;
  } while (detail::next_index(index, batch));
  return out;
}

Tensor fused_matmul(const Tensor& a, const Tensor& b, double alpha, bool trans_a, bool trans_b,
                    const ir::Dims& out_dims) {
  auto last_two_swapped = [](const Tensor& t) {
    std::vector<int64_t> perm(t.dims.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    std::swap(perm[perm.size() - 2], perm[perm.size() - 1]);
    return transpose(t, perm);
  };
  Tensor out =
      matmul(trans_a ? last_two_swapped(a) : a, trans_b ? last_two_swapped(b) : b, out_dims);
  for (double& value : out.data) value *= alpha;
  return out;
}

}  // namespace saturate::runtime::kernels
