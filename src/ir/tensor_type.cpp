#include "ir/tensor_type.h"

#include "ir/symbolic_dim.h"
#include "support/error.h"
#include "support/half_precision.h"
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

bool is_arithmetic_dtype(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

double round_to_precision(double value, DType dtype) {
  switch (dtype) {
    case DType::F32:
      return static_cast<float>(value);
    case DType::F16:
      return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    case DType::BF16:
      return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(value)));
    default:
      return value;
  }
}

int element_size(DType dtype) {
  return info(dtype).size;
}

std::optional<std::string> shape_problem(const Dims& dims) {
  for (int64_t d : dims) {
    if (is_symbolic(d)) {
      // A size the symbols decide: it must not be negative at any of their values (a
      // difference such as `past - sequence` may be).
      std::optional<int64_t> least;
      try {
        least = to_expr(d).least_value();
      } catch (const Error&) {
        return "dimension " + std::to_string(d) + " is neither a size nor a symbolic dimension";
      }
      if (!least || *least < 0) {
        return "dimension " + dim_to_string(d) + " of " + to_string(dims) + " may be negative";
      }
    } else if (d <= 0) {
      return "dimensions must be positive, got " + to_string(dims);
    }
  }
  // The sizes' product; a symbolic dimension's run-time value is held to the limit where the
  // graph runs (a tensor of more than 2^40 elements cannot exist).
  int64_t count = 1;
  for (int64_t d : dims) {
    if (is_symbolic(d)) continue;
    if (d > kMaxElements / count) {
      return "shape " + to_string(dims) + " has more than 2^40 elements";
    }
    count *= d;
  }
  return std::nullopt;
}

bool TensorType::is_static() const {
  return !has_symbolic(dims);
}

int64_t TensorType::num_elements() const {
  if (!is_static()) {
    throw Error("the element count of " + to_string(*this) +
                " is symbolic (no number until the symbols are bound)");
  }
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

int64_t TensorType::element_count_dim() const {
  return dim_product(dims);
}

std::string dim_text(int64_t dim) {
  if (!is_symbolic(dim)) return std::to_string(dim);
  std::string text;
  try {
    text = dim_to_string(dim);
  } catch (const Error&) {
    return std::to_string(dim);  // no interned expression: a corrupt value, shown as it is
  }
  std::erase(text, ' ');
  return text;
}

std::string to_string(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : " ") + dim_text(dims[i]);
  return text + "]";
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
      std::string_view item = body.substr(start, end - start);
      auto dim = parse_int(item);
      if (!dim) dim = parse_dim(item);
      if (!dim) return std::nullopt;
      type.dims.push_back(*dim);
    }
    start = end + 1;
  }
  return type;
}

}  // namespace saturate::ir
