#include "runtime/index_math.h"

#include <optional>
#include <string>

#include "support/error.h"

namespace saturate::runtime::detail {

int64_t product(const ir::Dims& dims, size_t begin, size_t end) {
  int64_t result = 1;
  for (size_t i = begin; i < end; ++i) result *= dims[i];
  return result;
}

std::vector<int64_t> broadcast_strides(const ir::Dims& dims, const ir::Dims& out) {
  if (dims.size() > out.size()) {
    throw Error("shape " + ir::to_string(dims) + " does not broadcast to " + ir::to_string(out));
  }
  std::vector<int64_t> own = row_major_strides(dims);
  std::vector<int64_t> strides(out.size(), 0);
  size_t offset = out.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == out[offset + i]) {
      strides[offset + i] = own[i];
    } else if (dims[i] != 1) {
      throw Error("shape " + ir::to_string(dims) + " does not broadcast to " + ir::to_string(out));
    }
  }
  return strides;
}

int normalize_axis(int64_t axis, int rank) {
  const std::optional<int64_t> position = ir::normalized_axis(axis, rank);
  if (!position) {
    throw Error("axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  return static_cast<int>(*position);
}

bool next_index(std::vector<int64_t>& index, const ir::Dims& dims) {
  for (size_t i = dims.size(); i-- > 0;) {
    if (++index[i] < dims[i]) return true;
    index[i] = 0;
  }
  return false;
}

}  // namespace saturate::runtime::detail
