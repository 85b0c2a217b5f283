#include "onnx/external_data_writer.h"

#include "support/error.h"

namespace saturate::onnx {

ExternalDataWriter::ExternalDataWriter(std::string path, std::string location)
    : path_(std::move(path)), location_(std::move(location)) {
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot open '" + path_ + "' for writing external data");
}

void ExternalDataWriter::append(::onnx::TensorProto& tensor, const char* bytes, size_t size) {
  constexpr uint64_t kAlignment = 64;
  static const char kZeros[kAlignment] = {};
  uint64_t padding = (kAlignment - offset_ % kAlignment) % kAlignment;
  out_.write(kZeros, static_cast<std::streamsize>(padding));
  offset_ += padding;
  out_.write(bytes, static_cast<std::streamsize>(size));
  if (!out_) throw Error("error while writing external data to '" + path_ + "'");
  tensor.clear_raw_data();
  tensor.set_data_location(::onnx::TensorProto::EXTERNAL);
  auto add = [&tensor](const std::string& key, const std::string& value) {
    auto* entry = tensor.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("location", location_);
  add("offset", std::to_string(offset_));
  add("length", std::to_string(size));
  offset_ += size;
}

void ExternalDataWriter::finish() {
  out_.flush();
  out_.close();
  if (!out_) throw Error("error while writing external data to '" + path_ + "'");
}

}  // namespace saturate::onnx
