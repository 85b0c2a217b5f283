#include "onnx/onnx_tensor_data.h"

#include <cstring>

#include "onnx/host_tensor.h"
#include "support/checked_math.h"
#include "support/error.h"
#include "support/half_precision.h"

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
  return tensor.data_type() == TensorProto::FLOAT || tensor.data_type() == TensorProto::FLOAT16 ||
         tensor.data_type() == TensorProto::BFLOAT16;
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
                ": only float32, float16 and bfloat16 tensors are read as floats");
  }
  int64_t count = element_count(tensor, what);
  if (tensor.data_type() == TensorProto::FLOAT) {
    if (tensor.has_raw_data()) return from_raw<float>(tensor.raw_data(), count, what);
    check_count(static_cast<size_t>(tensor.float_data_size()), count, what);
    return std::vector<float>(tensor.float_data().begin(), tensor.float_data().end());
  }
  // 16-bit floats: raw little-endian bits, or one value's bits per int32_data entry (as the
  // ONNX spec stores them outside raw_data). Every such value is exact as a float.
  const auto widen =
      tensor.data_type() == TensorProto::FLOAT16 ? half_bits_to_float : bfloat16_bits_to_float;
  std::vector<uint16_t> bits;
  if (tensor.has_raw_data()) {
    bits = from_raw<uint16_t>(tensor.raw_data(), count, what);
  } else {
    check_count(static_cast<size_t>(tensor.int32_data_size()), count, what);
    bits.reserve(static_cast<size_t>(count));
    for (int32_t v : tensor.int32_data()) bits.push_back(static_cast<uint16_t>(v));
  }
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = widen(bits[i]);
  return values;
}

std::string float_bytes(const std::vector<float>& values, ir::DType dtype) {
  if (dtype == ir::DType::F32) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  }
  if (dtype != ir::DType::F16 && dtype != ir::DType::BF16) {
    throw Error("cannot write a " + std::string(ir::to_string(dtype)) +
                " tensor from float values");
  }
  const auto narrow = dtype == ir::DType::F16 ? float_to_half_bits : float_to_bfloat16_bits;
  std::string bytes(values.size() * sizeof(uint16_t), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    const uint16_t bits = narrow(values[i]);
    std::memcpy(bytes.data() + i * sizeof(uint16_t), &bits, sizeof(uint16_t));
  }
  return bytes;
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
                  const std::vector<float>& values, ir::DType dtype) {
  tensor.set_name(name);
  tensor.set_raw_data(float_bytes(values, dtype));  // refuses a type that is not a float
  tensor.set_data_type(to_onnx_elem_type(dtype));
  for (int64_t d : dims) tensor.add_dims(d);
}

void write_ints(TensorProto& tensor, const std::string& name, const ir::Dims& dims,
                const std::vector<int64_t>& values) {
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::INT64);
  for (int64_t d : dims) tensor.add_dims(d);
  for (int64_t v : values) tensor.add_int64_data(v);
}

}  // namespace saturate::onnx
