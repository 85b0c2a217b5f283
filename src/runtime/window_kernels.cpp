// Sliding-window operators over NCHW tensors: conv2d (and fused_conv, conv2d with its bias, a
// sum and an activation) and the two pools.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runtime/kernels.h"
#include "support/error.h"

namespace saturate::runtime::kernels {
namespace {

// Where each output row/column's window starts and how far it reaches, along one axis.
struct Axis {
  int64_t size;    // input extent
  int64_t out;     // output extent
  int64_t kernel;  // window extent
  int64_t stride;
  int64_t pad;  // padding before the first element

  int64_t start(int64_t o) const { return o * stride - pad; }
  // The in-bounds kernel taps [first, last) of output position o.
  int64_t first_tap(int64_t o) const { return std::max<int64_t>(0, -start(o)); }
  int64_t last_tap(int64_t o) const { return std::min(kernel, size - start(o)); }
};

Axis make_axis(int64_t size, int64_t out, int64_t kernel, int64_t stride, ir::Padding padding) {
  return {size, out, kernel, stride, pad_before(size, out, kernel, stride, padding)};
}

// Shared body of the two pools: `reduce` folds the in-bounds elements of one window.
template <typename Reduce>
Tensor pool(const Tensor& x, const Window& window, const ir::Dims& out_dims, Reduce reduce) {
  const int64_t planes = x.dims[0] * x.dims[1];
  const Axis rows =
      make_axis(x.dims[2], out_dims[2], window.kernel_h, window.stride_h, window.padding);
  const Axis cols =
      make_axis(x.dims[3], out_dims[3], window.kernel_w, window.stride_w, window.padding);
  Tensor out(out_dims);
  size_t flat = 0;
  for (int64_t p = 0; p < planes; ++p) {
    const double* plane = x.data.data() + p * rows.size * cols.size;
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      for (int64_t ox = 0; ox < cols.out; ++ox) {
        out.data[flat++] = reduce(plane, rows, cols, oy, ox);
      }
    }
  }
  return out;
}

}  // namespace

int64_t pad_before(int64_t size, int64_t out, int64_t kernel, int64_t stride, ir::Padding padding) {
  if (padding == ir::Padding::Valid) return 0;
  int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return total / 2;
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Window& window, const ir::Dims& out_dims) {
  const int64_t batch = x.dims[0];
  const int64_t channels = x.dims[1];
  const int64_t out_channels = w.dims[0];
  const int64_t group_channels = w.dims[1];  // input channels each output channel sees
  const int64_t groups = channels / group_channels;
  const int64_t outputs_per_group = out_channels / groups;
  const Axis rows = make_axis(x.dims[2], out_dims[2], w.dims[2], window.stride_h, window.padding);
  const Axis cols = make_axis(x.dims[3], out_dims[3], w.dims[3], window.stride_w, window.padding);

  Tensor out(out_dims);
  size_t flat = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t o = 0; o < out_channels; ++o) {
      const int64_t first_channel = (o / outputs_per_group) * group_channels;
      for (int64_t oy = 0; oy < rows.out; ++oy) {
        for (int64_t ox = 0; ox < cols.out; ++ox) {
          double sum = 0.0;
          for (int64_t i = 0; i < group_channels; ++i) {
            const double* plane =
                x.data.data() + (n * channels + first_channel + i) * rows.size * cols.size;
            const double* kernel =
                w.data.data() + (o * group_channels + i) * rows.kernel * cols.kernel;
            for (int64_t ky = rows.first_tap(oy); ky < rows.last_tap(oy); ++ky) {
              const int64_t y = rows.start(oy) + ky;
              for (int64_t kx = cols.first_tap(ox); kx < cols.last_tap(ox); ++kx) {
                const int64_t col = cols.start(ox) + kx;
                sum += plane[y * cols.size + col] * kernel[ky * cols.kernel + kx];
              }
            }
          }
          out.data[flat++] = sum;
        }
      }
    }
  }
  return out;
}

Tensor fused_conv(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor* sum,
                  const Window& window, const FusedActivation& activation,
                  const ir::Dims& out_dims) {
  Tensor out = conv2d(x, w, window, out_dims);
  const int64_t channels = out_dims[1];
  const int64_t plane = out_dims[2] * out_dims[3];
  for (size_t i = 0; i < out.data.size(); ++i) {
    // bias holds one value per channel whatever its shape; NCHW puts a channel's plane together.
    out.data[i] += bias.data[static_cast<size_t>((static_cast<int64_t>(i) / plane) % channels)];
    if (sum != nullptr) out.data[i] += sum->data[i];
  }
  activate(out, activation);
  return out;
}

Tensor pool_max(const Tensor& x, const Window& window, const ir::Dims& out_dims) {
  return pool(x, window, out_dims,
              [](const double* plane, const Axis& rows, const Axis& cols, int64_t oy, int64_t ox) {
                // Padding never wins: only in-bounds elements compete (every SAME or VALID
                // window holds at least one).
                double best = -std::numeric_limits<double>::infinity();
                for (int64_t ky = rows.first_tap(oy); ky < rows.last_tap(oy); ++ky) {
                  const double* row = plane + (rows.start(oy) + ky) * cols.size;
                  for (int64_t kx = cols.first_tap(ox); kx < cols.last_tap(ox); ++kx) {
                    const double v = row[cols.start(ox) + kx];
                    if (v > best || std::isnan(v)) best = v;  // NaN sticks, as in numpy
                  }
                }
                return best;
              });
}

Tensor pool_avg(const Tensor& x, const Window& window, const ir::Dims& out_dims) {
  return pool(x, window, out_dims,
              [](const double* plane, const Axis& rows, const Axis& cols, int64_t oy, int64_t ox) {
                // The divisor counts in-bounds elements only (padding is not averaged in).
                double sum = 0.0;
                int64_t count = 0;
                for (int64_t ky = rows.first_tap(oy); ky < rows.last_tap(oy); ++ky) {
                  const double* row = plane + (rows.start(oy) + ky) * cols.size;
                  for (int64_t kx = cols.first_tap(ox); kx < cols.last_tap(ox); ++kx) {
                    sum += row[cols.start(ox) + kx];
                    ++count;
                  }
                }
                if (count == 0) throw Error("poolavg: a window lies entirely in the padding");
                return sum / static_cast<double>(count);
              });
}

}  // namespace saturate::runtime::kernels
