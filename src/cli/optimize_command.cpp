// `saturate optimize`: the options of driver::run_pipeline on the command line, and what it
// found printed as a table.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/cost_model_options.h"
#include "cli/graph_loader.h"
#include "cli/option_checks.h"
#include "cli/text_table.h"
#include "cli/verification.h"
#include "driver/deployment_target.h"
#include "driver/optimize_pipeline.h"
#include "extract/milp_solver.h"
#include "support/cpu_cores.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

// The IR names --fusions takes, from the one list of them (driver::kContribOperators).
std::string fusion_names() {
  std::string names;
  for (ir::OpKind op : driver::kContribOperators) {
    names += (names.empty() ? "" : ", ") + std::string(ir::to_string(op));
  }
  return names;
}

struct OptimizeCommandOptions {
  driver::ModelInput input;
  driver::PipelineOptions pipeline;
};

void print_summary(const driver::PipelineOptions& options, const driver::PipelineResult& result) {
  const nlohmann::ordered_json& report = result.report;
  TextTable table({"", "original", "optimized"});
  // A cost is null when the time limit stopped the search before it was known.
  auto cost = [](const nlohmann::ordered_json& value) {
    return value.is_null() ? std::string("-") : format_fixed(value.get<double>(), 4);
  };
  table.add_row({"cost (ms, " + report["cost_model"].get<std::string>() + ")",
                 cost(report["original_cost"]), cost(report["optimized_cost"])});
  table.add_row({"operators", std::to_string(result.original.num_operators()),
                 std::to_string(result.optimized.num_operators())});
  std::printf("%s\n", table.render().c_str());
  if (!report["speedup_percent"].is_null())
    std::printf("speedup (cost model): %.2f%%\n", report["speedup_percent"].get<double>());
  if (!result.cost_summary.empty()) std::printf("%s\n", result.cost_summary.c_str());
  if (const auto& latency = report["latency_check"]; !latency.is_null()) {
    const double original_ms = latency["original_median_ms"].get<double>();
    const double optimized_ms = latency["optimized_median_ms"].get<double>();
    // The speedup with its interval, and what the paired test made of it.
    const auto& interval = latency["speedup_interval"];
    auto end = [](const nlohmann::ordered_json& value, const char* unbounded) {
      return value.is_null() ? std::string(unbounded) : format_fixed(value.get<double>(), 3);
    };
    const std::string verdict = latency["verdict"].get<std::string>();
    std::string kept =
        latency["kept"] == "optimized" ? "kept the optimized model" : "kept the original";
    // Several profiles: each run is one at every profile, weighted.
    const std::string at =
        latency.contains("profiles")
            ? ", each run at " + std::to_string(latency["profiles"].size()) + " profiles weighted"
            : "";
    std::printf(
        "latency check (onnxruntime, %d paired runs%s): original %.3f ms, optimized %.3f ms "
        "(median); speedup %.3fx, %.0f%% interval %s to %s: %s, %s\n",
        latency["runs"].get<int>(), at.c_str(), original_ms, optimized_ms,
        latency["speedup"].get<double>(), 100 * latency["confidence"].get<double>(),
        end(interval[0], "0").c_str(), end(interval[1], "inf").c_str(), verdict.c_str(),
        kept.c_str());
  } else if (report.value("kept_original", false) && report.contains("extracted_graph_cost")) {
    std::printf("the extracted graph cost %.4f ms, more than the original: kept the original\n",
                report["extracted_graph_cost"].get<double>());
  }
  if (const auto it = report.find("fused_operators"); it != report.end() && !it->empty()) {
    std::string fused;
    for (const auto& [op, count] : it->items()) {
      fused += (fused.empty() ? "" : ", ") + std::to_string(count.get<size_t>()) + " " + op;
    }
    std::printf("fused into ONNX Runtime kernels: %s\n", fused.c_str());
  }
  if (const auto& guards = report["session_fusion_guards"];
      !guards.is_null() && guards["candidates"].get<size_t>() > 0) {
    std::string prices;
    for (const auto& price : guards["prices"]) {
      prices += (prices.empty() ? "" : "; ") +
                format_fixed(price["skip_layer_norm_ms"].get<double>(), 3) + " ms against " +
                format_fixed(price["add_and_layernorm_ms"].get<double>(), 3) + " ms";
    }
    std::printf(
        "session fusion guards: %zu of %zu residual norms respelled%s so that ONNX Runtime does "
        "not fuse them into SkipLayerNormalization (measured %s for Add + LayerNormalization)\n",
        guards["guarded"].get<size_t>(), guards["candidates"].get<size_t>(),
        guards["written"].get<bool>() ? "" : " (not written: the original was kept)",
        prices.c_str());
  }
  if (!result.search_summary.empty()) std::printf("%s\n", result.search_summary.c_str());
  if (options.verify) print_verification(report, result.verified);
  if (const auto conversion = report.find("precision_conversion"); conversion != report.end()) {
    std::printf(
        "precision: %s, float16 (%zu operators, %zu kept in float32, inputs and outputs "
        "%s); differs from the original by %.3g of an output's range (budget %s)\n",
        (*conversion)["within_budget"].get<bool>() ? "converted" : "NOT WRITTEN",
        (*conversion)["converted_nodes"].get<size_t>(),
        (*conversion)["float32_nodes"].get<size_t>(),
        (*conversion)["keep_io_types"].get<bool>() ? "kept" : "converted",
        (*conversion)["max_rel_error"].get<double>(),
        format_double((*conversion)["budget"].get<double>()).c_str());
  }
  if (!options.outputs.model.empty() &&
      ((result.verified && result.precision_within_budget) || options.keep_unverified))
    std::printf("wrote %s\n", options.outputs.model.c_str());
  if (!options.outputs.json.empty()) std::printf("wrote %s\n", options.outputs.json.c_str());
}

void run_optimize(const OptimizeCommandOptions& command) {
  const driver::PipelineResult result = driver::run_pipeline(command.input, command.pipeline);
  print_summary(command.pipeline, result);
  if (!result.verified) {
    throw VerificationFailed(verification_failure("the optimized graph", result.report,
                                                  command.pipeline.keep_unverified));
  }
  if (!result.precision_within_budget) {
    const auto& conversion = result.report["precision_conversion"];
    char error[32];
    std::snprintf(error, sizeof error, "%.3g", conversion["max_rel_error"].get<double>());
    throw VerificationFailed(
        std::string("the float16 conversion differs from the original by ") + error +
        " of an output's range, over the budget of " +
        format_double(conversion["budget"].get<double>()) + " (--precision-budget)" +
        (command.pipeline.keep_unverified ? "; written anyway (--keep-unverified)"
                                          : "; nothing written but the --json report"));
  }
}

}  // namespace

void register_optimize_command(CLI::App& app) {
  auto command_options = std::make_shared<OptimizeCommandOptions>();
  driver::ModelInput* input = &command_options->input;
  driver::PipelineOptions* options = &command_options->pipeline;
  auto* command = app.add_subcommand(
      "optimize", "Optimize a graph by equality saturation and extraction; print what changed");
  command->add_option("MODEL", input->spec, "Bundled model name, .sxp graph or .onnx model")
      ->required();
  command->add_flag("--reduced", input->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, input->input_shapes);
  command->add_option(
      "--profile", options->profiles,
      "Sizes of the model's symbolic dimensions at which operators are priced, extraction runs "
      "and the latency check times, NAME=SIZE,...[@WEIGHT] (repeatable; several are weighted); "
      "symbols a profile leaves out take batch 1, other lengths 128. The written model keeps its "
      "symbolic dimensions; verification also runs at adversarial sizes (1, 7, 37)");
  add_external_data_option(command, options->outputs.external_data);
  command->add_option("-o,--output", options->outputs.model,
                      "Write the optimized graph (.sxp, or .onnx for an ONNX input)");
  command->add_option("--json", options->outputs.json, "Write a JSON report");
  command->add_option("--dot", options->outputs.dot, "Write the optimized graph as Graphviz DOT");
  command->add_option("--egraph-json", options->outputs.egraph_json,
                      "Write the explored e-graph as egraph-serialize JSON");
  command->add_option("--egraph-dot", options->outputs.egraph_dot,
                      "Write the explored e-graph as Graphviz DOT");
  command->add_option("--rules", options->rule_files,
                      "Rule file (repeatable; default: the shipped library in rules/)");
  command
      ->add_option("--pypm", options->pypm_files,
                   "Also apply the rules of a compiled PyPM file (.pmb), non-destructively")
      ->check(CLI::ExistingFile);
  command->add_flag("--no-rules", options->no_rules,
                    "Apply no rule files, not even the shipped library (only --pypm rules)");
  command
      ->add_option("--target", options->target,
                   "Runtime the output is for: onnxruntime may fuse into its com.microsoft "
                   "kernels (those --fusions names), onnx writes standard operators only "
                   "(default: onnxruntime for an ONNX input, onnx otherwise)")
      ->check(CLI::IsMember(driver::kTargets));
  command
      ->add_option("--fusions", options->fusions,
                   "With --target onnxruntime, the kernels it may fuse into: " + fusion_names() +
                       ", or none (default: all)")
      ->delimiter(',');
  command->add_option("--tensat-multi", options->tensat_multi_files,
                      "TENSAT multi-pattern rule file (repeatable)");
  command
      ->add_option("--node-limit", options->node_limit,
                   "E-graph node limit; given, it replaces the default node budget (100 nodes per "
                   "input operator, at least 2,000)")
      ->check(kPositiveCount)
      ->each([options](const std::string&) { options->node_limit_given = true; })
      ->capture_default_str();
  command->add_flag("--no-budget", options->no_budget,
                    "Grow to the limits as given: no node budget scaled to the input and no "
                    "per-iteration match limit for multi-pattern rules (the paper's setting)");
  command->add_option("--iter-limit", options->iteration_limit, "Iteration limit")
      ->check(kCount)
      ->capture_default_str();
  command->add_option("--k-multi", options->k_multi, "Iterations in which multi-pattern rules run")
      ->check(kCount)
      ->capture_default_str();
  command->add_flag("--multi-same-class", options->multi_same_class,
                    "Also apply multi-pattern matches whose patterns match one e-class (TENSAT's "
                    "Algorithm 1 as written; by default an operator is never merged with itself)");
  command
      ->add_option("--time-limit", options->time_limit,
                   "Seconds for the whole command, import to write: the search, cost "
                   "measurement and the ONNX Runtime checks share it; when it runs out the "
                   "original model is written and the report says where (time_limit_reached_while)")
      ->check(kPositiveSeconds)
      ->capture_default_str();
  command->add_option("--cycle-filter", options->cycle_filter, "Cycle filtering")
      ->check(CLI::IsMember({"efficient", "vanilla"}))
      ->capture_default_str();
  command->add_option("--extract", options->extractor, "Extraction method")
      ->check(CLI::IsMember({"ilp", "greedy", "greedy-dag", "bottom-up"}))
      ->capture_default_str();
  command->add_option("--ilp-cycles", options->ilp_cycles, "ILP cycle constraints")
      ->check(CLI::IsMember({"none", "lazy", "real", "int"}))
      ->capture_default_str();
  command->add_option("--ilp-time-limit", options->ilp_time_limit, "ILP time limit (s)")
      ->check(kPositiveSeconds)
      ->capture_default_str();
  command
      ->add_option("--ilp-solver", options->ilp_solver,
                   "MILP solver: highs (needs Python's highspy), cbc, or auto (highs when "
                   "available)")
      ->check(CLI::IsMember(extract::milp_solver_names()))
      ->capture_default_str();
  command->add_flag("--backoff", options->backoff,
                    "Use egg's backoff scheduler instead of applying every match");
  command
      ->add_option("--search", options->search,
                   "eqsat: equality saturation and extraction; taso: TASO's backtracking "
                   "search over the same rules and cost model (the baseline)")
      ->check(CLI::IsMember({"eqsat", "taso"}))
      ->capture_default_str();
  command->add_option("--alpha", options->alpha, "TASO: keep graphs cheaper than alpha x best")
      ->check(CLI::Range(1.0, 10.0))
      ->capture_default_str();
  command->add_option("--budget", options->budget, "TASO: graphs expanded at most")
      ->check(kCount)
      ->capture_default_str();
  add_cost_model_options(command, options->cost);
  command
      ->add_option("--threads", options->cost.threads,
                   "Threads ONNX Runtime times operators and whole models with, as deployed "
                   "(default: ONNX Runtime's own default, one per physical core: " +
                       std::to_string(physical_cores()) +
                       " here); for onednn, its threads (default: the OpenMP default)")
      ->check(kCount);
  command
      ->add_option("--latency-runs", options->latency_runs,
                   "ONNX input with --cost onnxruntime: time both whole models in ONNX Runtime, "
                   "at most this many interleaved pairs of runs, and write the optimized model "
                   "only if a sequential paired test decides it is faster (0: no check)")
      ->check(kCount)
      ->capture_default_str();
  command
      ->add_option("--latency-budget", options->latency_budget,
                   "Seconds of timing after which the latency check stops and decides on what "
                   "it has (undecided keeps the original), but not before 40 paired runs (or "
                   "--latency-runs); it stops sooner once decided")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_flag(
      "!--no-session-guards", options->session_guards,
      "ONNX input with --cost onnxruntime: do not respell residual norms to keep ONNX Runtime's "
      "session-time SkipLayerNormFusion away where its kernel measures slower than the Add "
      "and LayerNormalization it replaces (by default they are respelled there)");
  command->add_flag("--verify", options->verify,
                    "Run original and optimized graphs on the same random inputs and compare "
                    "(in the reference interpreter in float64; an ONNX model in ONNX Runtime, in "
                    "float64 when it has double kernels for every operator). On a mismatch only "
                    "the --json report is written and the exit status is 3");
  command->add_flag("--keep-unverified", options->keep_unverified,
                    "With --verify: write the outputs even when verification fails (the report "
                    "has the verdict; the exit status is still 3)");
  command
      ->add_option("--precision", options->precision,
                   "ONNX input: after optimization, convert the written model's arithmetic to "
                   "float16 (fp16; ONNX Runtime's converter) and check it against the original "
                   "on random inputs; written only when every output keeps to --precision-budget "
                   "(keep: no conversion; bfloat16 is not offered: ONNX Runtime's CPU provider "
                   "has no bfloat16 kernels to check it on)")
      ->check(CLI::IsMember({"keep", "fp16"}))
      ->capture_default_str();
  command->add_flag("!--no-keep-io-types", options->keep_io_types,
                    "With --precision fp16: convert the graph's inputs and outputs too (by "
                    "default they keep their float32 types, with a Cast at each)");
  command
      ->add_option("--keep-fp32", options->keep_fp32,
                   "With --precision fp16: operator types left in float32, besides ONNX "
                   "Runtime's converter's own list (e.g. --keep-fp32 Softmax,LayerNormalization)")
      ->delimiter(',');
  command
      ->add_option("--precision-budget", options->precision_budget,
                   "With --precision fp16: the largest difference each output of the converted "
                   "model may have from the original's, as a share of that output's range")
      ->check(CLI::Range(1e-9, 0.999999))
      ->capture_default_str();
  command->callback([command_options] { run_optimize(*command_options); });
}

}  // namespace saturate::cli
