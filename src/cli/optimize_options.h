#pragma once

// The options of `saturate optimize`, shared by its two searches.
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cost_model_options.h"
#include "cost/cost_model.h"
#include "eqsat/rule_file.h"
#include "ir/graph.h"
#include "onnx/onnx_model.h"

namespace saturate::cli {

struct OptimizeCommandOptions {
  std::string graph;
  bool reduced = false;
  std::vector<std::string> input_shapes;
  std::string output_path;
  std::string external_data = "auto";
  std::string json_path;
  std::string dot_path;
  std::string egraph_path;
  std::string egraph_dot_path;
  std::vector<std::string> rule_files;
  std::vector<std::string> tensat_multi_files;
  std::vector<std::string> pypm_files;
  bool no_rules = false;
  std::string target;  // --target: onnxruntime or onnx; empty: default_target(ONNX input)
  size_t node_limit = 50'000;
  bool node_limit_given = false;  // --node-limit on the command line: the node budget is off
  bool no_budget = false;         // --no-budget: neither the node nor the match budget
  size_t iteration_limit = 15;
  size_t k_multi = 1;
  bool multi_same_class = false;
  double time_limit = 3600;
  std::string cycle_filter = "efficient";
  std::string extractor = "ilp";
  std::string ilp_cycles = "none";
  double ilp_time_limit = 600;
  std::string ilp_solver = "auto";
  bool verify = false;
  bool keep_unverified = false;  // write the outputs even when --verify fails
  int latency_runs = 20;         // ONNX + onnxruntime: whole-model check in ONNX Runtime (0: off)
  bool backoff = false;
  std::string search = "eqsat";  // or "taso"
  double alpha = 1.05;           // TASO
  size_t budget = 100;           // TASO
  CostModelOptions cost;         // --cost, --cost-cache
  // Set by the command from what it loaded: "onnx", "sxp" or "bundled", and for an ONNX input
  // the model that `-o out.onnx` exports with.
  std::string input_format;
  std::shared_ptr<const onnx::OnnxModel> onnx_source;
};

// Writes what was asked (-o, --dot, --json; each through a temporary file, only once
// everything succeeded; -o and --dot only when `verified` or --keep-unverified) and prints the
// cost and operator table and the speedup line.
void write_outputs_and_summary(const OptimizeCommandOptions& options, const ir::Graph& original,
                               const ir::Graph& optimized, double original_cost,
                               double optimized_cost, const cost::CostModel& model,
                               const nlohmann::ordered_json& report, bool verified);

// `optimize --search taso`: the TASO baseline with the same rules and cost model; prints a table
// and writes the same outputs (-o, --dot, --json) as the equality-saturation path.
void run_taso_search(const OptimizeCommandOptions& options, const ir::Graph& graph,
                     const eqsat::RuleSet& rules, const cost::CostModel& model);

}  // namespace saturate::cli
