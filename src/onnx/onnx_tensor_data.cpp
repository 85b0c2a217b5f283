#include "onnx/onnx_tensor_data.h"

#include <cstring>

#include "support/checked_math.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::TensorProto;

// The element count of a tensor's shape; an error when a dimension is negative or the count
// passes 2^40 (ir::kMaxElements: no file holds that many, and sizes in bytes stay exact).
int64_t element_count(const TensorProto& tensor, const std::string& what) {
  ir::Dims dims = tensor_dims(tensor);
  auto count = checked_product(dims);
  if (!count || *count > ir::kMaxElements) {
    throw Error(what + " has shape " + ir::to_string(dims) + ": " +
                (count ? "more than 2^40 elements"
                       : "a negative dimension or an element count past int64"));
  }
  return *count;
}

void check_location(const TensorProto& tensor, const std::string& what) {
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    throw Error(what +
                " keeps its data in an external file, which is not supported "
                "(save the model with all tensors inside it)");
  }
}

// Little-endian raw data of `count` elements of type T (every platform we build for is
// little-endian, as ONNX's raw_data is).
template <typename T>
std::vector<T> from_raw(const std::string& raw, int64_t count, const std::string& what) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T)) {
    throw Error(what + " holds " + std::to_string(raw.size()) + " bytes of data, expected " +
                std::to_string(static_cast<size_t>(count) * sizeof(T)));
  }
  std::vector<T> values(static_cast<size_t>(count));
  if (count > 0) std::memcpy(values.data(), raw.data(), raw.size());
  return values;
}

void check_count(size_t got, int64_t expected, const std::string& what) {
  if (static_cast<int64_t>(got) != expected) {
    throw Error(what + " holds " + std::to_string(got) + " values, but its shape needs " +
                std::to_string(expected));
  }
}

}  // namespace

std::string data_type_name(int32_t data_type) {
  if (TensorProto::DataType_IsValid(data_type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(data_type));
  }
  return "type " + std::to_string(data_type);
}

bool is_float_tensor(const TensorProto& tensor) {
  return tensor.data_type() == TensorProto::FLOAT;
}

bool is_integer_tensor(const TensorProto& tensor) {
  return tensor.data_type() == TensorProto::INT64 || tensor.data_type() == TensorProto::INT32;
}

ir::Dims tensor_dims(const TensorProto& tensor) {
  return ir::Dims(tensor.dims().begin(), tensor.dims().end());
}

std::vector<float> read_floats(const TensorProto& tensor, const std::string& what) {
  check_location(tensor, what);
  if (!is_float_tensor(tensor)) {
    throw Error(what + " has element type " + data_type_name(tensor.data_type()) +
                ": only float32 tensors are supported as graph values");
  }
  int64_t count = element_count(tensor, what);
  if (tensor.has_raw_data()) return from_raw<float>(tensor.raw_data(), count, what);
  check_count(static_cast<size_t>(tensor.float_data_size()), count, what);
  return std::vector<float>(tensor.float_data().begin(), tensor.float_data().end());
}

std::vector<int64_t> read_ints(const TensorProto& tensor, const std::string& what) {
  check_location(tensor, what);
  int64_t count = element_count(tensor, what);
  if (tensor.data_type() == TensorProto::INT64) {
    if (tensor.has_raw_data()) return from_raw<int64_t>(tensor.raw_data(), count, what);
    check_count(static_cast<size_t>(tensor.int64_data_size()), count, what);
    return std::vector<int64_t>(tensor.int64_data().begin(), tensor.int64_data().end());
  }
  if (tensor.data_type() == TensorProto::INT32) {
    std::vector<int32_t> narrow;
    if (tensor.has_raw_data()) {
      narrow = from_raw<int32_t>(tensor.raw_data(), count, what);
    } else {
      check_count(static_cast<size_t>(tensor.int32_data_size()), count, what);
      narrow.assign(tensor.int32_data().begin(), tensor.int32_data().end());
    }
    return std::vector<int64_t>(narrow.begin(), narrow.end());
  }
  throw Error(what + " has element type " + data_type_name(tensor.data_type()) +
              ", expected INT64 integers");
}

void write_floats(TensorProto& tensor, const std::string& name, const ir::Dims& dims,
                  const std::vector<float>& values) {
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::FLOAT);
  for (int64_t d : dims) tensor.add_dims(d);
  tensor.set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

void write_ints(TensorProto& tensor, const std::string& name, const ir::Dims& dims,
                const std::vector<int64_t>& values) {
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::INT64);
  for (int64_t d : dims) tensor.add_dims(d);
  for (int64_t v : values) tensor.add_int64_data(v);
}

}  // namespace saturate::onnx
