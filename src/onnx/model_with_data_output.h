#pragma once

// A model file and its external data file made visible together, by one rename (internal to the
// onnx part). The data goes to a file name no other file holds, claimed before the model is
// serialized: `OUT.onnx.data` where neither it nor OUT.onnx exists, else
// `OUT.onnx.<8 hex digits>.data`. The data is moved to that name first, then the model over
// OUT.onnx: until that last rename the previous pair is whole and visible, after it the new
// one. Only then are the data files of the replaced model removed (those named by this scheme
// that no input reads). A failed or killed run leaves the previous pair untouched.
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "support/atomic_file.h"

namespace saturate::onnx {

class ModelWithDataOutput {
 public:
  // `keep`: files that must never be replaced or removed (the input's data files).
  ModelWithDataOutput(const std::string& model_path, std::set<std::string> keep);
  ~ModelWithDataOutput();
  ModelWithDataOutput(const ModelWithDataOutput&) = delete;
  ModelWithDataOutput& operator=(const ModelWithDataOutput&) = delete;

  // Where the data is written, and the name the model refers to it by.
  const std::string& data_temporary() const { return data_->temporary(); }
  const std::string& location() const { return location_; }

  // Makes the pair visible (see above). Throws saturate::Error, leaving the previous pair.
  void commit(std::string_view model_bytes);

 private:
  std::string model_path_;
  std::string directory_;
  std::string claimed_;   // the data file's final path, created empty to hold the name
  std::string location_;  // its file name
  std::set<std::string> keep_;
  std::unique_ptr<StagedFile> data_;
  bool committed_ = false;
};

}  // namespace saturate::onnx
