#include "onnx/external_data_writer.h"

#include <cstdio>

#include "support/error.h"

namespace saturate::onnx {

ExternalDataWriter::ExternalDataWriter(std::string temporary_path, std::string location)
    : temporary_path_(std::move(temporary_path)), location_(std::move(location)) {
  out_.open(temporary_path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot open '" + temporary_path_ + "' for writing external data");
}

ExternalDataWriter::~ExternalDataWriter() {
  if (!committed_) {
    out_.close();
    std::remove(temporary_path_.c_str());
  }
}

void ExternalDataWriter::append(::onnx::TensorProto& tensor, const char* bytes, size_t size) {
  constexpr uint64_t kAlignment = 64;
  static const char kZeros[kAlignment] = {};
  uint64_t padding = (kAlignment - offset_ % kAlignment) % kAlignment;
  out_.write(kZeros, static_cast<std::streamsize>(padding));
  offset_ += padding;
  out_.write(bytes, static_cast<std::streamsize>(size));
  if (!out_) throw Error("error while writing external data to '" + temporary_path_ + "'");
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

void ExternalDataWriter::commit(const std::string& final_path) {
  out_.flush();
  if (!out_) throw Error("error while writing external data to '" + temporary_path_ + "'");
  out_.close();
  if (std::rename(temporary_path_.c_str(), final_path.c_str()) != 0) {
    throw Error("cannot move the external data into place at '" + final_path + "'");
  }
  committed_ = true;
}

}  // namespace saturate::onnx
