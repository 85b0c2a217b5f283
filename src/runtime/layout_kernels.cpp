// Operators that move elements without arithmetic: transpose, enlarge, concat, split, slice,
// merge, reshape, pad.
#include <algorithm>

#include "runtime/index_math.h"
#include "runtime/kernels.h"

namespace saturate::runtime::kernels {

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  const size_t rank = perm.size();
  ir::Dims out_dims(rank);
  std::vector<int64_t> in_strides = detail::row_major_strides(x.dims);
  // Output axis i walks input axis perm[i], so it steps by that axis's stride.
  std::vector<int64_t> strides(rank);
  for (size_t i = 0; i < rank; ++i) {
    out_dims[i] = x.dims[static_cast<size_t>(perm[i])];
    strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  Tensor out(out_dims);
  if (out.data.empty()) return out;
  std::vector<int64_t> index(rank, 0);
  size_t flat = 0;
  do {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += index[i] * strides[i];
    out.data[flat++] = x.data[static_cast<size_t>(offset)];
  } while (detail::next_index(index, out_dims));
  return out;
}

Tensor enlarge(const Tensor& kernel, const ir::Dims& out_dims) {
  const int64_t planes = kernel.dims[0] * kernel.dims[1];
  const int64_t kh = kernel.dims[2];
  const int64_t kw = kernel.dims[3];
  const int64_t height = out_dims[2];
  const int64_t width = out_dims[3];
  // Shape inference guarantees even differences, so the kernel sits exactly in the middle.
  const int64_t top = (height - kh) / 2;
  const int64_t left = (width - kw) / 2;
  Tensor out(out_dims);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t y = 0; y < kh; ++y) {
      for (int64_t x = 0; x < kw; ++x) {
        out.data[static_cast<size_t>((p * height + top + y) * width + left + x)] =
            kernel.data[static_cast<size_t>((p * kh + y) * kw + x)];
      }
    }
  }
  return out;
}

Tensor concat(const std::vector<const Tensor*>& parts, int64_t axis) {
  const ir::Dims& first = parts.front()->dims;
  const int a = detail::normalize_axis(axis, static_cast<int>(first.size()));
  const auto ua = static_cast<size_t>(a);
  // Row-major: the result is, for each index of the axes before `axis`, the parts' contiguous
  // blocks (their axis extent times the trailing axes) one after the other.
  const int64_t outer = detail::product(first, 0, ua);
  const int64_t inner = detail::product(first, ua + 1, first.size());
  ir::Dims out_dims = first;
  out_dims[ua] = 0;
  for (const Tensor* part : parts) out_dims[ua] += part->dims[ua];
  Tensor out(out_dims);
  auto dst = out.data.begin();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* part : parts) {
      const int64_t block = part->dims[ua] * inner;
      auto src = part->data.begin() + o * block;
      dst = std::copy(src, src + block, dst);
    }
  }
  return out;
}

Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end) {
  const auto ua = static_cast<size_t>(detail::normalize_axis(axis, x.rank()));
  const int64_t outer = detail::product(x.dims, 0, ua);
  const int64_t inner = detail::product(x.dims, ua + 1, x.dims.size());
  const int64_t row = x.dims[ua] * inner;
  ir::Dims dims = x.dims;
  dims[ua] = end - start;
  Tensor out(dims);
  const int64_t block = (end - start) * inner;
  for (int64_t o = 0; o < outer; ++o) {
    auto src = x.data.begin() + o * row + start * inner;
    std::copy(src, src + block, out.data.begin() + o * block);
  }
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes) {
  std::vector<Tensor> parts;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    parts.push_back(slice(x, axis, begin, begin + size));
    begin += size;
  }
  return parts;
}

Tensor merge(const Tensor& w, int64_t count) {
  const int64_t out_channels = w.dims[0];
  const int64_t in_channels = w.dims[1];
  const int64_t taps = w.dims[2] * w.dims[3];
  const int64_t block = in_channels * taps;  // one output channel's weights in the input
  const int64_t per_block = out_channels / count;
  Tensor out({out_channels, in_channels * count, w.dims[2], w.dims[3]});
  // TASO's merge_gconv: output channel o keeps its weights at input-channel block o / (O/count)
  // of the widened kernel; everything else is zero.
  for (int64_t o = 0; o < out_channels; ++o) {
    auto src = w.data.begin() + o * block;
    auto dst = out.data.begin() + o * block * count + (o / per_block) * block;
    std::copy(src, src + block, dst);
  }
  return out;
}

Tensor reshape(const Tensor& x, const ir::Dims& out_dims) {
  return Tensor(out_dims, x.data);
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const ir::Dims& out_dims) {
  const size_t rank = x.dims.size();
  Tensor out(out_dims);
  if (x.data.empty()) return out;
  std::vector<int64_t> out_strides = detail::row_major_strides(out_dims);
  std::vector<int64_t> index(rank, 0);
  size_t flat = 0;
  do {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += (index[i] + pads[i]) * out_strides[i];
    out.data[static_cast<size_t>(offset)] = x.data[flat++];
  } while (detail::next_index(index, x.dims));
  return out;
}

}  // namespace saturate::runtime::kernels
