#include "ir/tensor_type.h"

#include "support/strings.h"

namespace saturate::ir {

namespace {

struct DTypeInfo {
  std::string_view name;
  int size;
  bool floating;
};

DTypeInfo info(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return {"f32", 4, true};
    case DType::F64:
      return {"f64", 8, true};
    case DType::F16:
      return {"f16", 2, true};
    case DType::BF16:
      return {"bf16", 2, true};
    case DType::I64:
      return {"i64", 8, false};
    case DType::I32:
      return {"i32", 4, false};
    case DType::I16:
      return {"i16", 2, false};
    case DType::I8:
      return {"i8", 1, false};
    case DType::U8:
      return {"u8", 1, false};
    case DType::U16:
      return {"u16", 2, false};
    case DType::U32:
      return {"u32", 4, false};
    case DType::U64:
      return {"u64", 8, false};
    case DType::Bool:
      return {"bool", 1, false};
  }
  return {"?", 4, false};
}

}  // namespace

std::string_view to_string(DType dtype) {
  return info(dtype).name;
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType dtype : kAllDTypes) {
    if (info(dtype).name == text) return dtype;
  }
  return std::nullopt;
}

std::string dtype_names() {
  std::string names;
  for (DType dtype : kAllDTypes) {
    names += (names.empty() ? "" : ", ") + std::string(info(dtype).name);
  }
  return names;
}

bool is_floating(DType dtype) {
  return info(dtype).floating;
}

int element_size(DType dtype) {
  return info(dtype).size;
}

std::optional<std::string> shape_problem(const Dims& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d <= 0) return "dimensions must be positive, got " + to_string(dims);
  }
  for (int64_t d : dims) {
    if (d > kMaxElements / count) {
      return "shape " + to_string(dims) + " has more than 2^40 elements";
    }
    count *= d;
  }
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
