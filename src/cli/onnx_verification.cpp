#include "cli/onnx_verification.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

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
        (std::filesystem::temp_directory_path() / "saturate-verify-XXXXXX.onnx").string();
    const int fd = ::mkstemps(pattern.data(), 5);
    if (fd < 0) throw Error("--verify: cannot create a temporary file");
    ::close(fd);
    path = pattern;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

bool verify_with_onnxruntime(const std::string& original_path, const ir::Graph& optimized,
                             const onnx::OnnxModel& source, nlohmann::ordered_json& report) {
  std::fprintf(stderr, "verifying: running both models in ONNX Runtime\n");
  TemporaryFile exported;
  onnx::write_onnx(optimized, source, exported.path);
  const std::string command =
      python_module_command("saturate.onnx_check", {"--json", original_path, exported.path});
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw Error("--verify: cannot start " + python_executable());
  std::string output;
  char chunk[4096];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) output.append(chunk, n);
  const int status = ::pclose(pipe);
  const int code = status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
  // Exit 0: match, 1: mismatch (both print the JSON result); anything else: the check could not
  // run, and the helper has said why on stderr.
  const nlohmann::json result = nlohmann::json::parse(output, nullptr, false);
  if ((code != 0 && code != 1) || result.is_discarded() || !result.contains("ok")) {
    throw Error(
        "--verify: the ONNX Runtime check failed (see the message above; it needs "
        "Python with onnxruntime and numpy)");
  }
  const bool verified = result["ok"].get<bool>();
  report["verified"] = verified;
  report["verify_runtime"] = "onnxruntime";
  report["max_abs_error"] = result["max_abs_error"];
  report["max_relative_error"] = result["max_rel_error"];
  report["verify_rtol"] = result["rtol"];
  report["verify_atol"] = result["atol"];
  report["outputs_finite"] = result.value("outputs_finite", true);
  return verified;
}

}  // namespace saturate::cli
