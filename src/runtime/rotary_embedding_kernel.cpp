// Rotary position embedding in the rotate-half form (Llama's, GPT-NeoX's): each head vector's
// two halves are rotated by the position's angles, which the tables hold twice over.
#include "runtime/index_math.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

Tensor rotary_embedding(const Tensor& x, const Tensor& cos, const Tensor& sin) {
  const int64_t positions = x.dims[2];
  const int64_t head = x.dims[3];
  const int64_t half = head / 2;
  const int64_t rows = detail::product(x.dims, 0, 2) * positions;  // one row per (b, n, s)
  Tensor out(x.dims);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t s = r % positions;
    const double* in = x.data.data() + r * head;
    const double* c = cos.data.data() + s * head;
    const double* n = sin.data.data() + s * head;
    double* y = out.data.data() + r * head;
    // rotate_half(x) = concat(-x[half:], x[:half]).
    for (int64_t i = 0; i < half; ++i) y[i] = in[i] * c[i] - in[i + half] * n[i];
    for (int64_t i = half; i < head; ++i) y[i] = in[i] * c[i] + in[i - half] * n[i];
  }
  return out;
}

}  // namespace saturate::runtime::kernels
