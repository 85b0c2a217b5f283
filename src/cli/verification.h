#pragma once

// --verify, shared by `optimize` and `pm apply`: both graphs run in the reference interpreter
// (float64) on the same random inputs, and the rewritten one must agree.

#include <cstdio>
#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "runtime/graph_comparison.h"

namespace saturate::cli {

// How much a rewritten graph may differ: rewrites change the order of floating-point
// operations, and the comparison runs in float64.
inline constexpr double kVerifyTolerance = 1e-6;

// Records verified, max_abs_error, max_relative_error and outputs_finite in the report and
// returns whether the graphs agree.
inline bool verify_rewrite(const ir::Graph& original, const ir::Graph& rewritten,
                           nlohmann::ordered_json& report) {
  std::fprintf(stderr, "verifying: running both graphs in the reference interpreter\n");
  runtime::GraphComparison comparison = runtime::compare_graphs(original, rewritten);
  const bool verified = comparison.max_relative_error <= kVerifyTolerance;
  report["verified"] = verified;
  report["max_abs_error"] = comparison.max_abs_error;
  report["max_relative_error"] = comparison.max_relative_error;
  report["outputs_finite"] = comparison.finite;
  return verified;
}

// The line `--verify` prints, from what verify_rewrite recorded.
inline void print_verification(const nlohmann::ordered_json& report, bool verified) {
  std::printf("verify: %s (max abs error %.3g, max relative error %.3g%s)\n",
              verified ? "ok" : "MISMATCH", report["max_abs_error"].get<double>(),
              report["max_relative_error"].get<double>(),
              report["outputs_finite"].get<bool>() ? "" : "; outputs not finite on random inputs");
}

}  // namespace saturate::cli
