#pragma once

// What --verify prints and how it ends a command (`optimize`, `pm apply`); the verdicts are the
// driver's (driver/verification.h). A failed check writes nothing but the --json report (with
// the verdict) and exits with kExitVerificationFailed, unless --keep-unverified asks for the
// outputs anyway.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {

// The exit status of a command whose --verify found different outputs (0: success, 1: an
// error, 2: an internal error).
inline constexpr int kExitVerificationFailed = 3;

// Thrown (after the report is written) when --verify found different outputs; main prints it
// as one line and exits with kExitVerificationFailed.
class VerificationFailed : public Error {
 public:
  using Error::Error;
};

// The lines `--verify` prints, from what the driver's verification recorded.
inline void print_verification(const nlohmann::ordered_json& report, bool verified) {
  if (report.value("verify_precision", std::string()) == "exact") {
    std::printf("verify: ok (%s)\n", report["verify_runtime"].get<std::string>().c_str());
    return;
  }
  const std::string precision = report.value("verify_precision", std::string("float64"));
  const bool per_range = report.contains("verify_outputs");
  std::printf("verify: %s (%s, %s; max abs error %.3g, %s %.3g%s)\n", verified ? "ok" : "MISMATCH",
              report.value("verify_runtime", std::string("reference interpreter")).c_str(),
              precision.c_str(), report["max_abs_error"].get<double>(),
              per_range ? "error relative to the output range" : "max relative error",
              report["max_relative_error"].get<double>(),
              report["outputs_finite"].get<bool>() ? "" : "; outputs not finite on random inputs");
  if (!per_range) return;
  if (const auto reference = report.find("verify_reference"); reference != report.end()) {
    std::printf(
        "  error budget: both models measured against the original run in %s; the "
        "optimized may err %s times the original's own error plus the float32 "
        "tolerance\n",
        printable(reference->get<std::string>()).c_str(),
        format_double(report.value("verify_error_budget_factor", 0.0)).c_str());
  }
  if (const auto segments = report.find("verify_quantized_segments"); segments != report.end()) {
    const bool flips = report.value("verify_policy", std::string()) != "outputs";
    std::printf(
        "  %s; compared segment by segment from the original's integers at %zu quantizers: "
        "largest difference %.3g of the range at a quantizer input (%s), %.3g at the outputs%s\n",
        flips ? "the outputs differ by rounding flips at quantizers"
              : "the outputs differ beyond rounding",
        (*segments)["quantizers"].get<size_t>(),
        (*segments)["max_rel_error_at_quantizers"].get<double>(),
        printable((*segments)["worst_quantizer_input"].get<std::string>()).c_str(),
        (*segments)["max_rel_error_at_outputs"].get<double>(), flips ? "" : "  MISMATCH");
    if (flips) return;
  } else if (const auto why = report.find("verify_quantized_segments_unavailable");
             why != report.end()) {
    std::printf("  no segment comparison of the quantized model: %s\n",
                printable(why->get<std::string>()).c_str());
  }
  const auto& outputs = report["verify_outputs"];
  if (verified && outputs.size() <= 1) return;
  for (const auto& output : outputs) {
    std::string own;
    if (const auto original = output.find("original_error"); original != output.end()) {
      own = ", the original's " + format_double(original->get<double>());
    }
    std::printf("  %s: max abs error %.3g%s, range %.3g, allowed %.3g%s\n",
                printable(output["name"].get<std::string>()).c_str(),
                output["max_abs_error"].get<double>(), own.c_str(), output["range"].get<double>(),
                output["tolerance"].get<double>(), output["ok"].get<bool>() ? "" : "  MISMATCH");
  }
}

// The message of VerificationFailed: what differed and what was (not) written.
inline std::string verification_failure(const std::string& what,
                                        const nlohmann::ordered_json& report,
                                        bool kept_unverified) {
  char error[32];
  std::snprintf(error, sizeof error, "%.3g", report["max_abs_error"].get<double>());
  std::string message =
      what + " does not compute the same outputs (verify: max abs error " + error + ")";
  return message + (kept_unverified ? "; written anyway (--keep-unverified)"
                                    : "; nothing written but the --json report "
                                      "(--keep-unverified writes the outputs anyway)");
}

}  // namespace saturate::cli
