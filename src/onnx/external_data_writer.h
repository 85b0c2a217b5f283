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
  // Writes to `path` (a staged temporary its owner moves into place); the model refers to the
  // data as `location` (the data file's name beside the model). Throws saturate::Error when the
  // file cannot be opened.
  ExternalDataWriter(std::string path, std::string location);
  ExternalDataWriter(const ExternalDataWriter&) = delete;
  ExternalDataWriter& operator=(const ExternalDataWriter&) = delete;

  // Appends `bytes` (aligned to 64 bytes, so runtimes may map tensors in place) and points
  // `tensor` at them. Throws saturate::Error on a write failure.
  void append(::onnx::TensorProto& tensor, const char* bytes, size_t size);

  // Flushes and closes the file; throws saturate::Error when a write failed.
  void finish();

  uint64_t size() const { return offset_; }

 private:
  std::string path_;
  std::string location_;
  std::ofstream out_;
  uint64_t offset_ = 0;
};

}  // namespace saturate::onnx
