#pragma once

// Checks of an optimized ONNX model in ONNX Runtime (the runtime the user deploys on), through
// Python helpers. --verify: the original file and the optimized model run on the same random
// inputs (saturate.onnx_check); the reference interpreter cannot do this check, it has no
// kernels for the opaque operators an ONNX model may carry. The latency check: both timed.
#include <nlohmann/json.hpp>
#include <string>

#include "ir/graph.h"
#include "onnx/onnx_model.h"

namespace saturate::cli {

// Records verified, verify_runtime, verify_precision (float64 when ONNX Runtime runs both models
// in double, else float32), max_abs_error, max_relative_error (relative to the output's range),
// verify_outputs (per output: max_abs_error, range, relative_to_range, tolerance, ok) and
// outputs_finite in the report and returns whether the models agree. Throws saturate::Error when
// the check cannot run (no Python or onnxruntime, a model ORT rejects).
bool verify_with_onnxruntime(const std::string& original_path, const ir::Graph& optimized,
                             const onnx::OnnxModel& source, nlohmann::ordered_json& report);

// Medians of whole-model runs in ONNX Runtime, original and optimized side by side.
struct LatencyCheck {
  double original_ms = 0;
  double optimized_ms = 0;
  int runs = 0;
  bool optimized_is_slower() const { return optimized_ms > original_ms; }
};

// The last check of `optimize --cost onnxruntime` on an ONNX model: `runs` interleaved runs of
// each model through saturate.ort_latency. The cost model prices one operator at a time and
// cannot see what ONNX Runtime does to a whole graph (layout changes around a Split, its own
// fusions), so an optimized model measured slower than the original is not kept. Throws
// saturate::Error when the check cannot run.
LatencyCheck check_latency_in_onnxruntime(const std::string& original_path,
                                          const ir::Graph& optimized, const onnx::OnnxModel& source,
                                          int runs, int threads);

}  // namespace saturate::cli
