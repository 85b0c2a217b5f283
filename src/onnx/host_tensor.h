#pragma once

// Typed tensors held on the host while import folds what is known (internal to the onnx part).
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor_type.h"

namespace saturate::onnx {

// A tensor of any element type the folder computes on. Integer and bool elements are exact in
// `ints` (int64 holds every integer type exporters use for shape arithmetic, and INT64_MAX as a
// Slice end stays INT64_MAX); floating-point elements are in `reals`, rounded to their element
// type after every operation, so float32 arithmetic folds to the float32 numbers a runtime
// would compute.
struct HostTensor {
  int32_t elem_type = ::onnx::TensorProto::FLOAT;
  ir::Dims dims;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  bool is_real() const { return !ints_type(elem_type); }
  int64_t size() const { return static_cast<int64_t>(is_real() ? reals.size() : ints.size()); }
  double real(int64_t i) const {
    return is_real() ? reals[static_cast<size_t>(i)]
                     : static_cast<double>(ints[static_cast<size_t>(i)]);
  }
  // Only for integer and bool tensors.
  int64_t integer(int64_t i) const { return ints[static_cast<size_t>(i)]; }

  static bool ints_type(int32_t elem_type);
};

// Element types the folder computes on: float, double, float16, bfloat16, the integer types up
// to 64 bits (uint64 excluded: its upper half does not fit int64) and bool.
bool foldable_type(int32_t elem_type);

// The element type's ir::DType, when the IR carries it.
std::optional<ir::DType> to_ir_dtype(int32_t elem_type);
int32_t to_onnx_elem_type(ir::DType dtype);

// A tensor of `dims` filled with zeros; throws saturate::Error when its element count overflows
// or passes `element_limit`.
HostTensor make_host_tensor(int32_t elem_type, const ir::Dims& dims, int64_t element_limit);

// Rounds a computed value to what the element type holds (float, float16, bfloat16: the
// nearest such value; integers wrap
// as two's complement; bool: 0 or 1).
double round_to_type(double value, int32_t elem_type);
int64_t wrap_to_type(int64_t value, int32_t elem_type);

// Reads a TensorProto's data (raw or typed fields); throws saturate::Error naming `what` on an
// unfoldable type, external data or a size that does not match the dims.
HostTensor read_host_tensor(const ::onnx::TensorProto& tensor, const std::string& what);
// Writes it as raw data.
void write_host_tensor(const HostTensor& value, const std::string& name,
                       ::onnx::TensorProto& tensor);

// Element count of `dims`, or nullopt when a dimension is negative or the product overflows.
std::optional<int64_t> checked_element_count(const ir::Dims& dims);

}  // namespace saturate::onnx
