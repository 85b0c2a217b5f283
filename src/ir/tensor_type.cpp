#include "ir/tensor_type.h"

#include "support/strings.h"

namespace saturate::ir {

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "f32";
    case DType::F64:
      return "f64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  if (text == "f32") return DType::F32;
  if (text == "f64") return DType::F64;
  return std::nullopt;
}

int64_t TensorType::num_elements() const {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

std::string to_string(const Dims& dims) {
  return "[" + join_ints(dims, " ") + "]";
}

std::string to_string(const TensorType& type) {
  return std::string(to_string(type.dtype)) + to_string(type.dims);
}

}  // namespace saturate::ir
