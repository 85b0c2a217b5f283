#include "cli/onnx_verification.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "cli/python_helpers.h"
#include "onnx/onnx_export.h"
#include "support/error.h"

namespace saturate::cli {
namespace {

// A temporary file name that is removed when this goes out of scope.
struct TemporaryFile {
  std::string path;
  TemporaryFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "saturate-check-XXXXXX.onnx").string();
    const int fd = ::mkstemps(pattern.data(), 5);
    if (fd < 0) throw Error("cannot create a temporary file for an ONNX Runtime check");
    ::close(fd);
    path = pattern;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    std::filesystem::remove(path + ".data", ignored);  // external data, for models past 2 GB
  }
};

// Runs `python -m MODULE ARGS...` and returns its standard output parsed as JSON, with its exit
// code; a discarded JSON value when it printed none.
std::pair<nlohmann::json, int> run_json_helper(const std::string& module,
                                               const std::vector<std::string>& args,
                                               const std::string& what) {
  CompletedProcess done;
  try {
    done = run_python_module(module, args);
  } catch (const Error& error) {
    throw Error(what + ": " + error.what());
  }
  return {nlohmann::json::parse(done.output, nullptr, false), done.exit_code};
}

}  // namespace

bool verify_with_onnxruntime(const std::string& original_path, const ir::Graph& optimized,
                             const onnx::OnnxModel& source, nlohmann::ordered_json& report) {
  std::fprintf(stderr, "verifying: running both models in ONNX Runtime\n");
  TemporaryFile exported;
  onnx::write_onnx(optimized, source, exported.path);
  const auto [result, code] =
      run_json_helper("saturate.onnx_check", {"--json", original_path, exported.path}, "--verify");
  // Exit 0: match, 1: mismatch (both print the JSON result); anything else: the check could not
  // run, and the helper has said why on stderr.
  if ((code != 0 && code != 1) || result.is_discarded() || !result.contains("ok")) {
    throw Error(
        "--verify: the ONNX Runtime check failed (see the message above; it needs "
        "Python with onnxruntime and numpy)");
  }
  const bool verified = result["ok"].get<bool>();
  report["verified"] = verified;
  report["verify_runtime"] = "onnxruntime";
  report["verify_precision"] = result.value("precision", "float32");
  if (result.contains("float64_unavailable") && !result["float64_unavailable"].is_null()) {
    report["verify_float64_unavailable"] = result["float64_unavailable"];
  }
  report["max_abs_error"] = result["max_abs_error"];
  // The error relative to its output's range (max |original|), the largest over the outputs.
  report["max_relative_error"] = result["max_rel_error"];
  report["verify_rtol"] = result["rtol"];
  report["verify_atol"] = result["atol"];
  report["outputs_finite"] = result.value("outputs_finite", true);
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& output : result.value("outputs", nlohmann::json::array())) {
    outputs.push_back({{"name", output.value("name", "")},
                       {"max_abs_error", output.value("max_abs_error", 0.0)},
                       {"range", output.value("range", 0.0)},
                       {"relative_to_range", output.value("max_rel_error", 0.0)},
                       {"tolerance", output.value("tolerance", 0.0)},
                       {"ok", output.value("ok", true)}});
  }
  report["verify_outputs"] = outputs;
  return verified;
}

LatencyCheck check_latency_in_onnxruntime(const std::string& original_path,
                                          const ir::Graph& optimized, const onnx::OnnxModel& source,
                                          int runs, int threads) {
  std::fprintf(stderr, "latency check: timing both models in ONNX Runtime (%d runs each)\n", runs);
  TemporaryFile exported;
  onnx::write_onnx(optimized, source, exported.path);
  const auto [result, code] =
      run_json_helper("saturate.ort_latency",
                      {"--json", "--runs", std::to_string(runs), "--threads",
                       std::to_string(threads), original_path, exported.path},
                      "latency check");
  if (code != 0 || result.is_discarded() || !result.contains("original") ||
      !result.contains("optimized")) {
    throw Error(
        "the ONNX Runtime latency check failed (see the message above; it needs Python with "
        "onnxruntime; --latency-runs 0 skips it)");
  }
  LatencyCheck check;
  check.original_ms = result["original"]["median_ms"].get<double>();
  check.optimized_ms = result["optimized"]["median_ms"].get<double>();
  check.runs = runs;
  return check;
}

}  // namespace saturate::cli
