#include "onnx/onnxruntime_helper.h"

#include <limits>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/error.h"
#include "support/json_helper_client.h"
#include "support/python_helper.h"

namespace saturate::onnx {

OnnxruntimeHelper::OnnxruntimeHelper(const std::string& python, const std::string& python_dir) {
  std::vector<std::string> environment;
  if (!python_dir.empty()) environment.push_back(python_path_environment_entry(python_dir));
  process_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{python, "-m", "saturate.ort_helper", "--serve"}, environment);
}

OnnxruntimeHelper::~OnnxruntimeHelper() = default;  // closing its input ends the helper

nlohmann::json ModelReferences::add(const ModelSource& model) {
  if (!model.path.empty()) return model.path;
  attachments_.push_back(model.bytes);
  return {{"attachment", attachments_.size() - 1}};
}

nlohmann::json OnnxruntimeHelper::ask(const nlohmann::json& request, const std::string& what,
                                      const std::vector<std::string_view>& attachments) {
  return ask_json_helper(*process_, request, what, attachments, deadline_);
}

ModelCheckAnswer OnnxruntimeHelper::check_models(const ModelSource& original,
                                                 const ModelSource& optimized,
                                                 const ModelCheckRequest& request) {
  ModelReferences models;
  const nlohmann::json original_ref = models.add(original);
  const nlohmann::json optimized_ref = models.add(optimized);
  const nlohmann::json answer =
      ask({{"check",
            {{"original", original_ref},
             {"optimized", optimized_ref},
             {"latency_runs", request.latency_runs},
             {"latency_budget", request.latency_budget_seconds > 0
                                    ? nlohmann::json(request.latency_budget_seconds)
                                    : nlohmann::json(nullptr)},
             {"threads", request.threads},
             {"verify", request.verify},
             {"input_shapes", request.input_shapes},
             {"latency_weights", request.latency_weights.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(request.latency_weights)},
             {"required_input_shapes", request.required_input_shapes
                                           ? nlohmann::json(*request.required_input_shapes)
                                           : nlohmann::json(nullptr)}}}},
          "the ONNX Runtime check", models.attachments());
  ModelCheckAnswer result;
  try {
    read_check_answer(answer, request, result);
  } catch (const nlohmann::json::exception& error) {
    throw Error(std::string("the ONNX Runtime check answered malformed JSON: ") + error.what());
  }
  return result;
}

nlohmann::json OnnxruntimeHelper::convert_to_float16(const ModelSource& model,
                                                     const ModelSource& original,
                                                     const std::string& out,
                                                     nlohmann::json options) {
  ModelReferences models;
  options["model"] = models.add(model);
  options["original"] = models.add(original);
  options["out"] = out;
  options["precision"] = "fp16";
  return ask({{"convert", options}}, "the float16 conversion", models.attachments());
}

void OnnxruntimeHelper::read_check_answer(const nlohmann::json& answer,
                                          const ModelCheckRequest& request,
                                          ModelCheckAnswer& result) {
  if (request.latency_runs > 0) {
    const nlohmann::json& latency = answer.at("latency");
    const nlohmann::json& verdict = latency.at("optimized").at("verdict");
    // An end of the interval that too few rounds leave unbounded is null.
    auto bound = [&](const char* key, double unbounded) {
      return verdict.at(key).is_null() ? unbounded : verdict.at(key).get<double>();
    };
    LatencyComparison comparison;
    comparison.original_ms = latency.at("original").at("median_ms").get<double>();
    comparison.optimized_ms = latency.at("optimized").at("median_ms").get<double>();
    comparison.runs = verdict.at("rounds").get<int>();
    comparison.verdict = verdict.at("kind").get<std::string>();
    comparison.speedup = verdict.at("speedup").get<double>();
    comparison.speedup_low = bound("speedup_low", 0);
    comparison.speedup_high = bound("speedup_high", std::numeric_limits<double>::infinity());
    comparison.confidence = verdict.at("confidence").get<double>();
    result.latency = comparison;
  }
  if (request.verify) {
    const nlohmann::json& verification = answer.at("verification");
    if (!verification.is_object() || !verification.contains("ok")) {
      throw Error("the ONNX Runtime check answered no verification verdict");
    }
    result.verification = verification;
  }
}

}  // namespace saturate::onnx
