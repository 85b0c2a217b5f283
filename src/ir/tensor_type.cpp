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

std::optional<TensorType> parse_tensor_type(std::string_view text) {
  size_t open = text.find('[');
  if (open == std::string_view::npos || text.empty() || text.back() != ']') return std::nullopt;
  auto dtype = parse_dtype(text.substr(0, open));
  if (!dtype) return std::nullopt;
  TensorType type{*dtype, {}};
  std::string_view body = text.substr(open + 1, text.size() - open - 2);
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find(' ', start);
    if (end == std::string_view::npos) end = body.size();
    if (end > start) {
      auto dim = parse_int(body.substr(start, end - start));
      if (!dim) return std::nullopt;
      type.dims.push_back(*dim);
    }
    start = end + 1;
  }
  return type;
}

}  // namespace saturate::ir
