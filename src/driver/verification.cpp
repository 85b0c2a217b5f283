#include "driver/verification.h"

#include <cstdio>

#include "runtime/graph_comparison.h"

namespace saturate::driver {

bool verify_rewrite(const ir::Graph& original, const ir::Graph& rewritten,
                    nlohmann::ordered_json& report) {
  std::fprintf(stderr, "verifying: running both graphs in the reference interpreter (float64)\n");
  runtime::GraphComparison comparison = runtime::compare_graphs(original, rewritten);
  const bool verified = comparison.max_relative_error <= kVerifyTolerance;
  report["verified"] = verified;
  report["verify_runtime"] = "reference interpreter";
  report["verify_precision"] = "float64";
  report["verify_tolerance"] = kVerifyTolerance;
  report["max_abs_error"] = comparison.max_abs_error;
  report["max_relative_error"] = comparison.max_relative_error;
  report["outputs_finite"] = comparison.finite;
  report["worst_output"] = comparison.worst_output;
  return verified;
}

nlohmann::json output_differences(const nlohmann::json& check) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& output : check.value("outputs", nlohmann::json::array())) {
    nlohmann::json entry = {{"name", output.value("name", "")},
                            {"max_abs_error", output.value("max_abs_error", 0.0)},
                            {"range", output.value("range", 0.0)},
                            {"relative_to_range", output.value("max_rel_error", 0.0)},
                            {"tolerance", output.value("tolerance", 0.0)},
                            {"ok", output.value("ok", true)}};
    // Under the error budget max_abs_error is the optimized model's error against the
    // reference, and this the original's own.
    if (output.contains("original_error") && output["original_error"].is_number()) {
      entry["original_error"] = output["original_error"];
    }
    outputs.push_back(std::move(entry));
  }
  return outputs;
}

bool record_onnxruntime_verification(const nlohmann::json& check, nlohmann::ordered_json& report) {
  const bool verified = check.at("ok").get<bool>();
  report["verified"] = verified;
  report["verify_runtime"] = "onnxruntime";
  report["verify_precision"] = check.value("precision", "float32");
  if (check.contains("float64_unavailable") && !check["float64_unavailable"].is_null()) {
    report["verify_float64_unavailable"] = check["float64_unavailable"];
  }
  report["max_abs_error"] = check.at("max_abs_error");
  // The error relative to its output's range (max |original|), the largest over the outputs.
  report["max_relative_error"] = check.at("max_rel_error");
  report["verify_rtol"] = check.value("rtol", 0.0);
  report["verify_atol"] = check.value("atol", 0.0);
  report["outputs_finite"] = check.value("outputs_finite", true);
  report["verify_outputs"] = output_differences(check);
  // "outputs", or "segments between quantizers" when the outputs differ by rounding flips at a
  // quantized model's quantizers and every segment between them matched
  // (python/saturate/quantized_check.py).
  report["verify_policy"] = check.value("policy", "outputs");
  // A 16-bit model's error budget: the precision its original ran in as the reference.
  if (check.contains("reference") && check["reference"].is_string()) {
    report["verify_reference"] = check["reference"];
    report["verify_error_budget_factor"] = check.value("error_budget_factor", 0.0);
  }
  if (check.contains("quantized_segments") && !check["quantized_segments"].is_null()) {
    report["verify_quantized_segments"] = check["quantized_segments"];
  }
  if (check.contains("quantized_segments_unavailable") &&
      !check["quantized_segments_unavailable"].is_null()) {
    report["verify_quantized_segments_unavailable"] = check["quantized_segments_unavailable"];
  }
  if (check.contains("shapes") && check["shapes"].is_array()) {
    report["verify_input_shapes"] = check["shapes"];
  }
  if (check.contains("skipped_shapes") && check["skipped_shapes"].is_array() &&
      !check["skipped_shapes"].empty()) {
    report["verify_skipped_shapes"] = check["skipped_shapes"];
  }
  return verified;
}

std::vector<onnx::InputShapes> check_input_shapes(const onnx::OnnxModel& model) {
  if (model.pinned_input_shapes.empty()) return {};
  return {model.pinned_input_shapes};
}

void record_identical_model(nlohmann::ordered_json& report) {
  report["verified"] = true;
  report["verify_runtime"] = "identical: the input's own model is written";
  report["verify_precision"] = "exact";
  report["max_abs_error"] = 0.0;
  report["max_relative_error"] = 0.0;
}

bool verify_in_onnxruntime(onnx::OnnxruntimeHelper& helper, const onnx::ModelSource& original,
                           const onnx::ModelSource& rewritten,
                           const std::vector<onnx::InputShapes>& input_shapes,
                           nlohmann::ordered_json& report,
                           std::optional<size_t> required_input_shapes) {
  onnx::ModelCheckRequest request;
  request.verify = true;
  request.input_shapes = input_shapes;
  request.required_input_shapes = required_input_shapes;
  const onnx::ModelCheckAnswer answer = helper.check_models(original, rewritten, request);
  return record_onnxruntime_verification(*answer.verification, report);
}

}  // namespace saturate::driver
