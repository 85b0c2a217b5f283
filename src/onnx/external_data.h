#pragma once

// Tensor data kept beside the model file (internal to the onnx part): `model.onnx` plus
// `model.onnx.data`, the only way past protobuf's 2 GB limit.
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <set>
#include <string>

namespace saturate::onnx {

// Reads into each initializer the bytes its external file holds for it, so the rest of import
// sees ordinary raw data. Locations are relative to `base_dir`; one that is absolute or leads
// out of it is refused. Throws saturate::Error, prefixed with `source`, naming the tensor and
// the file when the file is missing or too short, or the length disagrees with the shape.
// Returns the number of tensors read; `files`, when given, receives each data file's path.
int load_external_data(::onnx::ModelProto& model, const std::filesystem::path& base_dir,
                       const std::string& source, std::set<std::string>* files = nullptr);

}  // namespace saturate::onnx
