#pragma once

// A model file and its external data file made visible together, by one rename (internal to the
// onnx part). The data file's name is claimed (created with O_EXCL, holding the claimer's pid,
// so two runs never share one) before the model is serialized (the model names it): `OUT.onnx.data`
// where neither it nor OUT.onnx exists, else `OUT.onnx.<8 hex digits>.data`. At commit the model is
// written to its temporary first; then the data temporary is renamed over the claimed name; then
// the model is renamed over OUT.onnx. Until that last rename the previous pair is whole and
// visible, after it the new one. Only then are the replaced model's data files removed (those named
// by this scheme that no input reads), claims whose process is gone, and data files of this scheme
// no model names once they are 10 minutes old (a run killed between its two renames). Temporaries
// are named after OUT.onnx, so the next run removes those of killed runs.
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
  void remove_replaced(const std::set<std::string>& replaced) const;

  std::string model_path_;
  std::string directory_;
  std::string data_path_;  // the data file's final path
  std::string location_;   // its file name
  std::set<std::string> keep_;
  std::unique_ptr<StagedFile> data_;
  bool committed_ = false;
};

}  // namespace saturate::onnx
