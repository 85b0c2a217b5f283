#pragma once

// The external data files an ONNX model file names, for checks outside the onnx part (no
// protobuf types in this header).
#include <string>
#include <vector>

namespace saturate::onnx {

// The external data files `model_path` names for its initializers (paths beside it, as import
// resolves them; names that leave its folder are left out), read without loading any weights;
// empty for a file that does not parse or is past 256 MB (its weights are inside it). For
// checks that an output never replaces what a run reads.
std::vector<std::string> external_data_files(const std::string& model_path);

}  // namespace saturate::onnx
