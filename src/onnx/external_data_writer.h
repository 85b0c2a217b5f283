#pragma once

// Writing tensor data beside the model file (internal to the onnx part): export appends each
// large initializer's bytes to one data file as it emits it, so no second copy of the weights
// is held in memory, and the model keeps only the reference.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace saturate::onnx {

class ExternalDataWriter {
 public:
  // Writes to `temporary_path`; the model refers to the data as `location` (the data file's
  // name beside the model). Throws saturate::Error when the file cannot be opened.
  ExternalDataWriter(std::string temporary_path, std::string location);
  ~ExternalDataWriter();
  ExternalDataWriter(const ExternalDataWriter&) = delete;
  ExternalDataWriter& operator=(const ExternalDataWriter&) = delete;

  // Appends `bytes` (aligned to 64 bytes, so runtimes may map tensors in place) and points
  // `tensor` at them. Throws saturate::Error on a write failure.
  void append(::onnx::TensorProto& tensor, const char* bytes, size_t size);

  // Flushes and moves the data file to `final_path`; until then the destructor removes it.
  void commit(const std::string& final_path);

  uint64_t size() const { return offset_; }

 private:
  std::string temporary_path_;
  std::string location_;
  std::ofstream out_;
  uint64_t offset_ = 0;
  bool committed_ = false;
};

}  // namespace saturate::onnx
