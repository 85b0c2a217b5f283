#include "onnx/host_tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "onnx/onnx_tensor_data.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::TensorProto;

template <typename T>
void append_raw(const std::string& raw, std::vector<int64_t>& out) {
  size_t count = raw.size() / sizeof(T);
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<int64_t>(value));
  }
}

template <typename T>
void append_raw_real(const std::string& raw, std::vector<double>& out) {
  size_t count = raw.size() / sizeof(T);
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<double>(value));
  }
}

template <typename T>
std::string to_raw(const std::vector<int64_t>& values) {
  std::string raw(values.size() * sizeof(T), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    auto narrow = static_cast<T>(values[i]);
    std::memcpy(raw.data() + i * sizeof(T), &narrow, sizeof(T));
  }
  return raw;
}

template <typename T>
std::string to_raw_real(const std::vector<double>& values) {
  std::string raw(values.size() * sizeof(T), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    auto narrow = static_cast<T>(values[i]);
    std::memcpy(raw.data() + i * sizeof(T), &narrow, sizeof(T));
  }
  return raw;
}

}  // namespace

bool HostTensor::ints_type(int32_t elem_type) {
  return elem_type != TensorProto::FLOAT && elem_type != TensorProto::DOUBLE &&
         elem_type != TensorProto::FLOAT16 && elem_type != TensorProto::BFLOAT16;
}

bool foldable_type(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT64:
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT32:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

std::optional<ir::DType> to_ir_dtype(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return ir::DType::F32;
    case TensorProto::DOUBLE:
      return ir::DType::F64;
    case TensorProto::FLOAT16:
      return ir::DType::F16;
    case TensorProto::BFLOAT16:
      return ir::DType::BF16;
    case TensorProto::INT64:
      return ir::DType::I64;
    case TensorProto::INT32:
      return ir::DType::I32;
    case TensorProto::INT16:
      return ir::DType::I16;
    case TensorProto::INT8:
      return ir::DType::I8;
    case TensorProto::UINT8:
      return ir::DType::U8;
    case TensorProto::UINT16:
      return ir::DType::U16;
    case TensorProto::UINT32:
      return ir::DType::U32;
    case TensorProto::UINT64:
      return ir::DType::U64;
    case TensorProto::BOOL:
      return ir::DType::Bool;
    default:
      return std::nullopt;
  }
}

int32_t to_onnx_elem_type(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F32:
      return TensorProto::FLOAT;
    case ir::DType::F64:
      return TensorProto::DOUBLE;
    case ir::DType::F16:
      return TensorProto::FLOAT16;
    case ir::DType::BF16:
      return TensorProto::BFLOAT16;
    case ir::DType::I64:
      return TensorProto::INT64;
    case ir::DType::I32:
      return TensorProto::INT32;
    case ir::DType::I16:
      return TensorProto::INT16;
    case ir::DType::I8:
      return TensorProto::INT8;
    case ir::DType::U8:
      return TensorProto::UINT8;
    case ir::DType::U16:
      return TensorProto::UINT16;
    case ir::DType::U32:
      return TensorProto::UINT32;
    case ir::DType::U64:
      return TensorProto::UINT64;
    case ir::DType::Bool:
      return TensorProto::BOOL;
  }
  return TensorProto::FLOAT;
}

std::optional<int64_t> checked_element_count(const ir::Dims& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    count *= d;
  }
  return count;
}

HostTensor make_host_tensor(int32_t elem_type, const ir::Dims& dims, int64_t element_limit) {
  auto count = checked_element_count(dims);
  if (!count) throw Error("the result's shape " + ir::to_string(dims) + " is not valid");
  if (*count > element_limit) {
    throw Error("the result would hold " + std::to_string(*count) +
                " elements, over the folding limit of " + std::to_string(element_limit));
  }
  HostTensor tensor;
  tensor.elem_type = elem_type;
  tensor.dims = dims;
  if (tensor.is_real()) {
    tensor.reals.assign(static_cast<size_t>(*count), 0.0);
  } else {
    tensor.ints.assign(static_cast<size_t>(*count), 0);
  }
  return tensor;
}

double round_to_type(double value, int32_t elem_type) {
  const std::optional<ir::DType> dtype = to_ir_dtype(elem_type);
  return dtype ? ir::round_to_precision(value, *dtype) : value;
}

int64_t wrap_to_type(int64_t value, int32_t elem_type) {
  auto bits = static_cast<uint64_t>(value);
  switch (elem_type) {
    case TensorProto::INT32:
      return static_cast<int32_t>(static_cast<uint32_t>(bits));
    case TensorProto::INT16:
      return static_cast<int16_t>(static_cast<uint16_t>(bits));
    case TensorProto::INT8:
      return static_cast<int8_t>(static_cast<uint8_t>(bits));
    case TensorProto::UINT32:
      return static_cast<uint32_t>(bits);
    case TensorProto::UINT16:
      return static_cast<uint16_t>(bits);
    case TensorProto::UINT8:
      return static_cast<uint8_t>(bits);
    case TensorProto::BOOL:
      return value != 0 ? 1 : 0;
    default:
      return value;
  }
}

HostTensor read_host_tensor(const TensorProto& tensor, const std::string& what) {
  if (!foldable_type(tensor.data_type())) {
    throw Error(what + " has element type " + data_type_name(tensor.data_type()) +
                ", which import does not fold");
  }
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    throw Error(what + " keeps its data in an external file that was not loaded");
  }
  HostTensor out;
  out.elem_type = tensor.data_type();
  out.dims = tensor_dims(tensor);
  if (out.elem_type == TensorProto::FLOAT16 || out.elem_type == TensorProto::BFLOAT16) {
    const std::vector<float> values = read_floats(tensor, what);  // widened exactly
    out.reals.assign(values.begin(), values.end());
    return out;
  }
  auto count = checked_element_count(out.dims);
  if (!count) throw Error(what + " has an invalid shape " + ir::to_string(out.dims));
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    auto bytes = static_cast<uint64_t>(ir::element_size(*to_ir_dtype(out.elem_type)));
    if (static_cast<uint64_t>(*count) > raw.size() / bytes || raw.size() != *count * bytes) {
      throw Error(what + " holds " + std::to_string(raw.size()) + " bytes of data, its shape " +
                  ir::to_string(out.dims) + " needs " + std::to_string(*count) + " elements");
    }
    switch (out.elem_type) {
      case TensorProto::FLOAT:
        append_raw_real<float>(raw, out.reals);
        break;
      case TensorProto::DOUBLE:
        append_raw_real<double>(raw, out.reals);
        break;
      case TensorProto::INT64:
        append_raw<int64_t>(raw, out.ints);
        break;
      case TensorProto::INT32:
        append_raw<int32_t>(raw, out.ints);
        break;
      case TensorProto::INT16:
        append_raw<int16_t>(raw, out.ints);
        break;
      case TensorProto::INT8:
        append_raw<int8_t>(raw, out.ints);
        break;
      case TensorProto::UINT32:
        append_raw<uint32_t>(raw, out.ints);
        break;
      case TensorProto::UINT16:
        append_raw<uint16_t>(raw, out.ints);
        break;
      default:  // UINT8, BOOL
        append_raw<uint8_t>(raw, out.ints);
        break;
    }
    return out;
  }
  switch (out.elem_type) {
    case TensorProto::FLOAT:
      out.reals.assign(tensor.float_data().begin(), tensor.float_data().end());
      break;
    case TensorProto::DOUBLE:
      out.reals.assign(tensor.double_data().begin(), tensor.double_data().end());
      break;
    case TensorProto::INT64:
      out.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
      break;
    case TensorProto::UINT32:
      out.ints.assign(tensor.uint64_data().begin(), tensor.uint64_data().end());
      break;
    default:  // ONNX keeps int32, int16, int8, uint16, uint8 and bool in int32_data
      out.ints.assign(tensor.int32_data().begin(), tensor.int32_data().end());
      break;
  }
  if (out.size() != *count) {
    throw Error(what + " holds " + std::to_string(out.size()) + " values, its shape " +
                ir::to_string(out.dims) + " needs " + std::to_string(*count));
  }
  for (auto& v : out.ints) v = wrap_to_type(v, out.elem_type);
  return out;
}

void write_host_tensor(const HostTensor& value, const std::string& name, TensorProto& tensor) {
  tensor.Clear();
  tensor.set_name(name);
  tensor.set_data_type(value.elem_type);
  for (int64_t d : value.dims) tensor.add_dims(d);
  switch (value.elem_type) {
    case TensorProto::FLOAT:
      tensor.set_raw_data(to_raw_real<float>(value.reals));
      break;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      tensor.set_raw_data(float_bytes(std::vector<float>(value.reals.begin(), value.reals.end()),
                                      *to_ir_dtype(value.elem_type)));
      break;
    case TensorProto::DOUBLE:
      tensor.set_raw_data(to_raw_real<double>(value.reals));
      break;
    case TensorProto::INT64:
      tensor.set_raw_data(to_raw<int64_t>(value.ints));
      break;
    case TensorProto::INT32:
      tensor.set_raw_data(to_raw<int32_t>(value.ints));
      break;
    case TensorProto::INT16:
      tensor.set_raw_data(to_raw<int16_t>(value.ints));
      break;
    case TensorProto::INT8:
      tensor.set_raw_data(to_raw<int8_t>(value.ints));
      break;
    case TensorProto::UINT32:
      tensor.set_raw_data(to_raw<uint32_t>(value.ints));
      break;
    case TensorProto::UINT16:
      tensor.set_raw_data(to_raw<uint16_t>(value.ints));
      break;
    default:  // UINT8, BOOL
      tensor.set_raw_data(to_raw<uint8_t>(value.ints));
      break;
  }
}

}  // namespace saturate::onnx
