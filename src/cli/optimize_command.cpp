#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/deployment_target.h"
#include "cli/file_checks.h"
#include "cli/graph_loader.h"
#include "cli/json_output.h"
#include "cli/name_checks.h"
#include "cli/onnx_verification.h"
#include "cli/optimize_options.h"
#include "cli/option_checks.h"
#include "cli/rules_loader.h"
#include "cli/text_table.h"
#include "cli/verification.h"
#include "cost/analytic_cost_model.h"
#include "eqsat/optimizer.h"
#include "extract/milp_solver.h"
#include "ir/dot_writer.h"
#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "pm/egraph_rules.h"
#include "pm/format_reader.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

// A file the e-graph writer produces during the run (--egraph-json, --egraph-dot): written to a
// temporary name beside it and moved into place only once everything succeeded and verified.
class PendingOutput {
 public:
  explicit PendingOutput(std::string path)
      : path_(std::move(path)), temporary_(path_.empty() ? "" : path_ + ".tmp-saturate-egraph") {}
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput() {
    std::error_code ignored;
    if (!temporary_.empty()) std::filesystem::remove(temporary_, ignored);
  }
  const std::string& temporary() const { return temporary_; }
  void commit() {
    if (temporary_.empty()) return;
    std::error_code error;
    std::filesystem::rename(temporary_, path_, error);
    if (error) throw Error("cannot move the written file into place at '" + path_ + "'");
  }

 private:
  std::string path_;
  std::string temporary_;
};

void run_optimize(const OptimizeCommandOptions& given) {
  // Before any work: every output must be writable and none may overwrite an input.
  std::vector<std::string> inputs = given.rule_files;
  inputs.insert(inputs.end(), given.tensat_multi_files.begin(), given.tensat_multi_files.end());
  inputs.insert(inputs.end(), given.pypm_files.begin(), given.pypm_files.end());
  if (names_a_file(given.graph)) inputs.push_back(given.graph);
  check_outputs(inputs, {{"-o", given.output_path},
                         {"--json", given.json_path},
                         {"--dot", given.dot_path},
                         {"--egraph-json", given.egraph_path},
                         {"--egraph-dot", given.egraph_dot_path}});
  LoadedGraph loaded = load_graph_source(given.graph, given.reduced, given.input_shapes);
  OptimizeCommandOptions options = given;
  options.input_format = loaded.format;
  options.onnx_source = loaded.onnx;
  // Optimize for the runtime the model is deployed on: an ONNX model, unless told otherwise,
  // is priced by timing its operators in ONNX Runtime.
  if (options.cost.kind.empty()) options.cost.kind = loaded.onnx ? "onnxruntime" : "analytic";
  if (ends_with(options.output_path, ".onnx") && !loaded.onnx) {
    throw Error("cannot write '" + options.output_path +
                "': exporting to ONNX needs the weights of an ONNX model, and '" + options.graph +
                "' is not one (write .sxp instead)");
  }
  ir::Graph graph = std::move(loaded.graph);
  if (options.no_rules && (!options.rule_files.empty() || !options.tensat_multi_files.empty())) {
    throw Error("--no-rules contradicts --rules/--tensat-multi");
  }
  eqsat::RuleSet rules = options.no_rules
                             ? eqsat::RuleSet{}
                             : load_rule_sets(options.rule_files, options.tensat_multi_files);
  if (options.target.empty()) options.target = default_target(loaded.onnx != nullptr);
  // TASO's search applies rule files only; --no-rules means no rules at all.
  const bool fuse = !options.no_rules && options.search == "eqsat";
  std::shared_ptr<const pm::Module> fusions = fuse ? target_fusions(options.target) : nullptr;
  std::unique_ptr<cost::CostModel> cost_model = make_cost_model(options.cost);
  const cost::CostModel& model = *cost_model;
  if (options.search == "taso") {
    if (!options.pypm_files.empty()) throw Error("--pypm works with --search eqsat only");
    run_taso_search(options, graph, rules, model);
    return;
  }

  eqsat::OptimizeOptions settings;
  settings.node_limit = options.node_limit;
  if (options.node_limit_given || options.no_budget) settings.node_budget_per_operator = 0;
  if (options.no_budget) settings.multi_pattern_matches_per_operator = 0;
  settings.iteration_limit = options.iteration_limit;
  settings.multi_pattern_iterations = options.k_multi;
  settings.multi_pattern_same_class = options.multi_same_class;
  settings.time_limit_seconds = options.time_limit;
  settings.cycle_filter = options.cycle_filter == "vanilla" ? eqsat::CycleFilterMode::Vanilla
                                                            : eqsat::CycleFilterMode::Efficient;
  settings.extractor = options.extractor == "greedy" ? "greedy-dag" : options.extractor;
  settings.ilp_cycles =
      extract::parse_cycle_handling(options.ilp_cycles == "int" ? "integer" : options.ilp_cycles);
  settings.ilp_time_limit_seconds = options.ilp_time_limit;
  settings.ilp_solver = options.ilp_solver;
  size_t pypm_rules = 0;
  for (const std::string& path : options.pypm_files) {
    auto module = std::make_shared<const pm::Module>(pm::load_pmb(path));
    check_rule_names(*module, path);
    pypm_rules += module->rules.size();
    add_pypm_rules(settings, module);
  }
  if (fusions) {
    pypm_rules += fusions->rules.size();
    add_pypm_rules(settings, fusions);
  }
  settings.backoff_scheduler = options.backoff;
  PendingOutput egraph_json(options.egraph_path);
  PendingOutput egraph_dot(options.egraph_dot_path);
  settings.egraph_json_path = egraph_json.temporary();
  settings.egraph_dot_path = egraph_dot.temporary();

  std::fprintf(stderr, "optimizing %s: %zu operators, %zu rules", graph.name().c_str(),
               graph.num_operators(), rules.size());
  if (pypm_rules > 0) std::fprintf(stderr, " + %zu PyPM rules", pypm_rules);
  if (fusions) std::fprintf(stderr, " (target %s)", options.target.c_str());
  std::fprintf(stderr, "\n");
  eqsat::OptimizeResult result = eqsat::optimize(graph, rules, model, settings);
  std::optional<LatencyCheck> latency;
  if (options.onnx_source && options.cost.kind == "onnxruntime" && options.latency_runs > 0 &&
      !result.kept_original) {
    latency = check_latency_in_onnxruntime(options.graph, result.graph, *options.onnx_source,
                                           options.latency_runs, std::max(options.cost.threads, 1));
    if (latency->optimized_is_slower()) {
      result.graph = graph;
      result.optimized_cost = result.original_cost;
      result.kept_original = true;
    }
  }

  nlohmann::ordered_json report = {
      {"model", graph.name()},
      {"cost_model", model.name()},
      {"original_cost", result.original_cost},
      {"optimized_cost", result.optimized_cost},
      {"speedup_percent", result.speedup_percent()},
      {"original_ops", graph.num_operators()},
      {"optimized_ops", result.graph.num_operators()},
      {"egraph_nodes", result.exploration.egraph_nodes},
      {"egraph_classes", result.exploration.egraph_classes},
      {"iterations", result.exploration.iterations},
      {"stop_reason",
       result.exploration.stop_reason ? result.exploration.stop_reason->kind_name() : "not run"},
      {"explore_seconds", result.explore_seconds},
      {"extract_seconds", result.extract_seconds},
      {"extractor", settings.extractor},
      {"ilp_optimal", result.extraction.proven_optimal},
      {"ilp_solver", result.extraction.solver},
      {"extraction_status", result.extraction.status},
      {"extracted_dag_cost", result.extracted_dag_cost},
      {"extracted_graph_cost", result.extracted_graph_cost},
      {"kept_original", result.kept_original},
      {"cycle_filter", std::string(eqsat::to_string(settings.cycle_filter))},
      {"filtered_nodes", result.filtered_nodes},
      {"cycle_prefilter_rejections", result.cycle_prefilter_rejections},
      {"cycle_filter_seconds", result.cycle_filter_seconds},
      {"node_limit", settings.node_limit},
      {"node_limit_used", result.node_limit_used},
      {"multi_pattern_match_limit", result.multi_pattern_match_limit},
      {"growth_stopped_by", result.growth_stopped_by},
      {"rules_at_match_limit", result.rules_at_match_limit},
      {"iteration_limit", settings.iteration_limit},
      {"k_multi", settings.multi_pattern_iterations},
      {"multi_same_class", settings.multi_pattern_same_class},
      {"target", options.target},
      {"fused_operators", contrib_operator_counts(result.graph)},
      {"verified", nullptr},
      {"max_abs_error", nullptr}};
  nlohmann::json rule_list = nlohmann::json::array();
  for (const eqsat::RuleStats& rule : result.rules) {
    if (rule.applied + rule.shape_rejected + rule.cycle_rejected + rule.condition_rejected +
            rule.split_rejected ==
        0) {
      continue;
    }
    rule_list.push_back({{"rule", rule.rule},
                         {"applied", rule.applied},
                         {"shape_rejected", rule.shape_rejected},
                         {"condition_rejected", rule.condition_rejected},
                         {"cycle_rejected", rule.cycle_rejected},
                         {"split_rejected", rule.split_rejected}});
  }
  report["rules"] = rule_list;  // the rules that matched
  report["rule_count"] = result.rules.size();
  report["latency_check"] = nullptr;
  if (latency) {
    report["latency_check"] = {{"runtime", "onnxruntime"},
                               {"runs", latency->runs},
                               {"original_median_ms", latency->original_ms},
                               {"optimized_median_ms", latency->optimized_ms},
                               {"kept", latency->optimized_is_slower() ? "original" : "optimized"}};
  }
  report["exploration"] = nlohmann::json::parse(result.exploration.to_json(true, -1));

  bool verified = true;
  if (options.verify) {
    verified = options.onnx_source ? verify_with_onnxruntime(options.graph, result.graph,
                                                             *options.onnx_source, report)
                                   : verify_rewrite(graph, result.graph, report);
  }

  write_outputs_and_summary(options, graph, result.graph, result.original_cost,
                            result.optimized_cost, model, report, verified);
  if (verified || options.keep_unverified) {
    egraph_json.commit();
    egraph_dot.commit();
  }
  if (latency) {
    std::printf(
        "latency check (onnxruntime, median of %d runs): original %.3f ms, optimized %.3f ms%s\n",
        latency->runs, latency->original_ms, latency->optimized_ms,
        latency->optimized_is_slower() ? ": slower, kept the original" : "");
  } else if (result.kept_original) {
    std::printf("the extracted graph cost %.4f ms, more than the original: kept the original\n",
                result.extracted_graph_cost);
  }
  const std::string stopped_by =
      result.growth_stopped_by == "node budget"
          ? "the node budget (" + std::to_string(result.node_limit_used) +
                " nodes for this input; --node-limit or --no-budget to grow further)"
      : result.exploration.stop_reason ? result.exploration.stop_reason->to_string()
                                       : std::string("nothing");
  std::printf("exploration: %zu iterations, stopped by %s, %zu e-nodes, %zu e-classes, %.3f s\n",
              result.exploration.iterations, stopped_by.c_str(), result.exploration.egraph_nodes,
              result.exploration.egraph_classes, result.explore_seconds);
  if (!result.rules_at_match_limit.empty()) {
    std::printf("match limit: %zu rule(s) found %zu matches in an iteration and took no more: %s\n",
                result.rules_at_match_limit.size(), result.multi_pattern_match_limit,
                join(result.rules_at_match_limit, ", ", [](const std::string& name) {
                  return name;
                }).c_str());
  }
  std::printf("cycle filter (%s): %zu nodes filtered, %zu matches skipped\n",
              std::string(eqsat::to_string(settings.cycle_filter)).c_str(), result.filtered_nodes,
              result.cycle_prefilter_rejections);
  const std::string extractor =
      settings.extractor +
      (result.extraction.solver.empty() ? "" : ", solver " + result.extraction.solver);
  std::printf("extraction (%s): %s%s, %.3f s\n", extractor.c_str(),
              result.extraction.status.c_str(),
              result.extraction.proven_optimal ? ", proven optimal" : "", result.extract_seconds);
  if (options.verify) {
    print_verification(report, verified);
  }
  if (!options.output_path.empty() && (verified || options.keep_unverified)) {
    std::printf("wrote %s\n", options.output_path.c_str());
  }
  if (!options.json_path.empty()) std::printf("wrote %s\n", options.json_path.c_str());
  if (!verified) {
    throw VerificationFailed(
        verification_failure("the optimized graph", report, options.keep_unverified));
  }
}

}  // namespace

void write_outputs_and_summary(const OptimizeCommandOptions& options, const ir::Graph& original,
                               const ir::Graph& optimized, double original_cost,
                               double optimized_cost, const cost::CostModel& model,
                               const nlohmann::ordered_json& report, bool verified) {
  // A graph that failed verification is not written (unless --keep-unverified); the report is,
  // with the verdict.
  const bool write_graph = verified || options.keep_unverified;
  if (write_graph && !options.output_path.empty()) {
    if (ends_with(options.output_path, ".onnx")) {
      if (!options.onnx_source) {
        throw Error("cannot write '" + options.output_path +
                    "': exporting to ONNX needs the weights of an ONNX model");
      }
      const bool kept_original = report.contains("kept_original") &&
                                 report["kept_original"].is_boolean() &&
                                 report["kept_original"].get<bool>();
      if (kept_original && options.onnx_source->external_tensors == 0) {
        // The input's own bytes: a re-export of the imported IR is not the model the user had
        // (folded shape arithmetic, renamed values) and need not run as fast.
        write_file_atomically(options.output_path, read_file(options.graph));
      } else {
        onnx::write_onnx(optimized, *options.onnx_source, options.output_path,
                         external_data_mode(options.external_data));
      }
    } else {
      write_file_atomically(options.output_path, ir::write_text(optimized));
    }
  }
  if (write_graph && !options.dot_path.empty())
    write_file_atomically(options.dot_path, ir::write_dot(optimized));
  nlohmann::ordered_json full_report = report;
  add_cost_model_report(model, full_report);
  full_report["input_format"] = options.input_format;
  full_report["opaque_nodes"] = original.nodes_of(ir::OpKind::Opaque).size();
  if (options.onnx_source) full_report["folded_nodes"] = options.onnx_source->folded_nodes;
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, dump_json(full_report));
  }

  TextTable table({"", "original", "optimized"});
  table.add_row({"cost (ms, " + model.name() + ")", format_fixed(original_cost, 4),
                 format_fixed(optimized_cost, 4)});
  table.add_row({"operators", std::to_string(original.num_operators()),
                 std::to_string(optimized.num_operators())});
  std::printf("%s\n", table.render().c_str());
  const double speedup = optimized_cost > 0 ? 100.0 * (original_cost / optimized_cost - 1.0) : 0;
  std::printf("speedup (cost model): %.2f%%\n", speedup);
  if (std::string summary = cost_model_summary(model); !summary.empty()) {
    std::printf("%s\n", summary.c_str());
  }
}

void register_optimize_command(CLI::App& app) {
  auto options = std::make_shared<OptimizeCommandOptions>();
  auto* command = app.add_subcommand(
      "optimize", "Optimize a graph by equality saturation and extraction; print what changed");
  command->add_option("MODEL", options->graph, "Bundled model name, .sxp graph or .onnx model")
      ->required();
  command->add_flag("--reduced", options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, options->input_shapes);
  add_external_data_option(command, options->external_data);
  command->add_option("-o,--output", options->output_path,
                      "Write the optimized graph (.sxp, or .onnx for an ONNX input)");
  command->add_option("--json", options->json_path, "Write a JSON report");
  command->add_option("--dot", options->dot_path, "Write the optimized graph as Graphviz DOT");
  command->add_option("--egraph-json", options->egraph_path,
                      "Write the explored e-graph as egraph-serialize JSON");
  command->add_option("--egraph-dot", options->egraph_dot_path,
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
                   "kernels (MultiHeadAttention), onnx writes standard operators only (default: "
                   "onnxruntime for an ONNX input, onnx otherwise)")
      ->check(CLI::IsMember(kTargets));
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
  command->add_option("--time-limit", options->time_limit, "Exploration time limit (s)")
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
                   "Threads of a measuring back end (default: 1 for onnxruntime, the OpenMP "
                   "default for onednn)")
      ->check(kCount);
  command
      ->add_option("--latency-runs", options->latency_runs,
                   "ONNX input with --cost onnxruntime: time both whole models this many "
                   "interleaved runs in ONNX Runtime and keep the original if the optimized one "
                   "is slower (0: no check)")
      ->check(kCount)
      ->capture_default_str();
  command->add_flag("--verify", options->verify,
                    "Run original and optimized graphs on the same random inputs and compare "
                    "(in the reference interpreter in float64; an ONNX model in ONNX Runtime, in "
                    "float64 when it has double kernels for every operator). On a mismatch only "
                    "the --json report is written and the exit status is 3");
  command->add_flag("--keep-unverified", options->keep_unverified,
                    "With --verify: write the outputs even when verification fails (the report "
                    "has the verdict; the exit status is still 3)");
  command->callback([options] { run_optimize(*options); });
}

}  // namespace saturate::cli
