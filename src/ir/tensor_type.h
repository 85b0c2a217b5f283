#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace saturate::ir {

// Element types. The IR's arithmetic operators compute on float32, float16 and bfloat16 (float64
// is the reference interpreter's exact mode); the other types are what exported models carry
// besides: token ids and shape arithmetic (int64), masks (bool), quantized weights. Values of any
// type flow through the graph; operators that compute check that their types hold.
enum class DType : uint8_t { F32, F64, F16, BF16, I64, I32, I16, I8, U8, U16, U32, U64, Bool };

inline constexpr DType kAllDTypes[] = {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I64,
                                       DType::I32, DType::I16, DType::I8,  DType::U8,   DType::U16,
                                       DType::U32, DType::U64, DType::Bool};

// "f32", "i64", "bool", ...: the text form's names.
std::string_view to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
// "f32, f64, f16, ...": every name parse_dtype accepts, for messages.
std::string dtype_names();
bool is_floating(DType dtype);
// float32, float16 or bfloat16: the precisions an imported model's operators compute in (float64
// is only the reference interpreter's exact mode).
bool is_arithmetic_dtype(DType dtype);
// `value` as an element of `dtype` holds it: rounded to nearest even for float32, float16 and
// bfloat16 (through float32 first, as runtimes compute 16-bit operators); other types unchanged.
double round_to_precision(double value, DType dtype);
// Bytes one element takes (bool: 1).
int element_size(DType dtype);

using Dims = std::vector<int64_t>;

// Element counts past this are refused wherever a shape is made (2^40: more than any machine
// holds, far below int64 overflow), so products and sums of a valid shape's dimensions never
// overflow.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// Why `dims` cannot be a tensor's shape (a size that is not positive, a symbolic dimension that
// may be negative, sizes whose product passes kMaxElements); nullopt when it can. A symbolic
// dimension (ir/symbolic_dim.h) is accepted, even one that may be 0 at run time (a cache length
// whose lower bound is 0); only the product of the sizes is held to kMaxElements.
std::optional<std::string> shape_problem(const Dims& dims);

// The static type of one tensor value: element type and dimensions, each a size or a symbolic
// dimension (ir/symbolic_dim.h).
struct TensorType {
  DType dtype = DType::F32;
  Dims dims;

  int rank() const { return static_cast<int>(dims.size()); }
  // Whether every dimension is a size.
  bool is_static() const;
  // The element count of a static shape; throws saturate::Error on a symbolic one (whose
  // count is no number: see element_count_dim).
  int64_t num_elements() const;
  // The element count as a dim: dim_product of the dimensions (a size for a static shape,
  // `batch*sequence*768` for a symbolic one).
  int64_t element_count_dim() const;
  bool operator==(const TensorType&) const = default;
};

// "[64 1024]" style, as used in messages and the text form; a symbolic dimension is written
// as dim_to_string writes it with its spaces dropped ("[batch past_sequence_length+sequence
// 768]"), so that the dimensions stay separated by spaces.
std::string to_string(const Dims& dims);
// One dimension as to_string(Dims) writes it: "64", "batch*sequence".
std::string dim_text(int64_t dim);
// "f32[64 1024]".
std::string to_string(const TensorType& type);
// Parses what to_string(TensorType) writes (dimensions through parse_dim); nullopt on anything
// else.
std::optional<TensorType> parse_tensor_type(std::string_view text);

}  // namespace saturate::ir
