#pragma once

// Reading and writing the data of ONNX TensorProtos (internal to the onnx part).
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor_type.h"

namespace saturate::onnx {

// "FLOAT", "INT64", ... for messages.
std::string data_type_name(int32_t data_type);

// FLOAT, FLOAT16 or BFLOAT16: the element types the IR's operators compute on.
bool is_float_tensor(const ::onnx::TensorProto& tensor);
bool is_integer_tensor(const ::onnx::TensorProto& tensor);  // INT64 or INT32

ir::Dims tensor_dims(const ::onnx::TensorProto& tensor);
// Element values (16-bit floats widened exactly); throw saturate::Error naming `what` on a wrong
// type, external data or a size that does not match the dims.
std::vector<float> read_floats(const ::onnx::TensorProto& tensor, const std::string& what);
std::vector<int64_t> read_ints(const ::onnx::TensorProto& tensor, const std::string& what);

// Writes `values` as raw data of element type `dtype` (F32, F16 or BF16; the 16-bit types
// rounded to nearest even).
void write_floats(::onnx::TensorProto& tensor, const std::string& name, const ir::Dims& dims,
                  const std::vector<float>& values, ir::DType dtype = ir::DType::F32);
// The bytes write_floats stores (for external data, written apart from the TensorProto);
// throws saturate::Error for a type other than F32, F16 and BF16.
std::string float_bytes(const std::vector<float>& values, ir::DType dtype);
void write_ints(::onnx::TensorProto& tensor, const std::string& name, const ir::Dims& dims,
                const std::vector<int64_t>& values);

}  // namespace saturate::onnx
