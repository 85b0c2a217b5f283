#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace saturate::ir {

// Element types. Float32 is what the graphs use; float64 exists for the reference interpreter's
// exact mode and for future imports.
enum class DType : uint8_t { F32, F64 };

std::string_view to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);

using Dims = std::vector<int64_t>;

// The static type of one tensor value: element type and fully known dimensions.
struct TensorType {
  DType dtype = DType::F32;
  Dims dims;

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t num_elements() const;
  bool operator==(const TensorType&) const = default;
};

// "[64 1024]" style, as used in messages and the text form.
std::string to_string(const Dims& dims);
// "f32[64 1024]".
std::string to_string(const TensorType& type);
// Parses what to_string(TensorType) writes; nullopt on anything else.
std::optional<TensorType> parse_tensor_type(std::string_view text);

}  // namespace saturate::ir
