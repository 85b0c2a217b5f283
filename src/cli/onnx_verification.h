#pragma once

// --verify for ONNX input: the original file and the optimized model run in ONNX Runtime (the
// runtime the user deploys on) on the same random inputs, through the Python helper
// saturate.onnx_check. The reference interpreter cannot do this check: it has no kernels for
// the opaque operators an ONNX model may carry.
#include <nlohmann/json.hpp>
#include <string>

#include "ir/graph.h"
#include "onnx/onnx_model.h"

namespace saturate::cli {

// Records verified, verify_runtime, max_abs_error, max_relative_error and outputs_finite in the
// report and returns whether the models agree. Throws saturate::Error when the check cannot run
// (no Python or onnxruntime, a model ORT rejects).
bool verify_with_onnxruntime(const std::string& original_path, const ir::Graph& optimized,
                             const onnx::OnnxModel& source, nlohmann::ordered_json& report);

}  // namespace saturate::cli
