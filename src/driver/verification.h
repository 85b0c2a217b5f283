#pragma once

// The verdicts of the pipeline's verify step, recorded in the report. A .sxp graph or bundled
// model runs in the reference interpreter in float64 on the same random inputs as the rewritten
// one (verify_rewrite); an ONNX model runs in ONNX Runtime (record_onnxruntime_verification),
// because the reference interpreter has no kernels for the opaque operators it may carry.
#include <nlohmann/json.hpp>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx_model.h"
#include "onnx/onnxruntime_helper.h"

namespace saturate::driver {

// How much a rewritten graph may differ in the reference interpreter: rewrites change the
// order of floating-point operations, and the comparison runs in float64. The error of an
// element is |a - b| / (1 + |b|).
inline constexpr double kVerifyTolerance = 1e-6;

// Records verified, verify_runtime, verify_precision, verify_tolerance, max_abs_error,
// max_relative_error, outputs_finite and worst_output; returns whether the graphs agree.
bool verify_rewrite(const ir::Graph& original, const ir::Graph& rewritten,
                    nlohmann::ordered_json& report);

// Records what saturate.onnx_check answered (its CheckResult as JSON): verified,
// verify_runtime, verify_precision (float64 when ONNX Runtime runs both models in double, else
// float32), max_abs_error, max_relative_error (relative to the output's range), verify_outputs
// (per output: max_abs_error, range, relative_to_range, tolerance, ok), outputs_finite and
// verify_input_shapes (the input shapes compared at, a list of {name: dims}); returns whether
// the models agree.
// Per output of saturate.onnx_check's CheckResult: name, max_abs_error, range,
// relative_to_range, tolerance, ok (and original_error under the 16-bit error budget).
nlohmann::json output_differences(const nlohmann::json& check);

bool record_onnxruntime_verification(const nlohmann::json& check, nlohmann::ordered_json& report);

// The input shapes ONNX Runtime's checks of an imported model and its rewrite feed
// (ModelCheckRequest::input_shapes): the one assignment --input-shape pinned, or none (the
// declared shapes, static) when nothing was pinned.
std::vector<onnx::InputShapes> check_input_shapes(const onnx::OnnxModel& model);

// Runs `original` and `rewritten` in ONNX Runtime through `helper` on the same random inputs
// (verification only, no timing), at each of `input_shapes` (see ModelCheckRequest), and
// records the verdict as record_onnxruntime_verification; returns whether the models agree.
bool verify_in_onnxruntime(onnx::OnnxruntimeHelper& helper, const onnx::ModelSource& original,
                           const onnx::ModelSource& rewritten,
                           const std::vector<onnx::InputShapes>& input_shapes,
                           nlohmann::ordered_json& report,
                           std::optional<size_t> required_input_shapes = std::nullopt);

// The verdict when the model written is the input's own file, byte for byte (the original was
// kept): nothing to run, the outputs are identical.
void record_identical_model(nlohmann::ordered_json& report);

}  // namespace saturate::driver
