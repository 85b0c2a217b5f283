// Equality saturation and extraction as the pipeline's search step.
#include <cstdio>

#include "driver/deployment_target.h"
#include "driver/name_checks.h"
#include "driver/search_stages.h"
#include "eqsat/optimizer.h"
#include "extract/milp_solver.h"
#include "pm/format_reader.h"
#include "support/strings.h"

namespace saturate::driver {
namespace {

eqsat::OptimizeOptions saturation_settings(const PipelineOptions& options) {
  eqsat::OptimizeOptions settings;
  settings.node_limit = options.node_limit;
  if (options.node_limit_given || options.no_budget) settings.node_budget_per_operator = 0;
  if (options.no_budget) settings.multi_pattern_matches_per_operator = 0;
  settings.iteration_limit = options.iteration_limit;
  settings.multi_pattern_iterations = options.k_multi;
  settings.multi_pattern_same_class = options.multi_same_class;
  settings.cycle_filter = options.cycle_filter == "vanilla" ? eqsat::CycleFilterMode::Vanilla
                                                            : eqsat::CycleFilterMode::Efficient;
  settings.extractor = options.extractor == "greedy" ? "greedy-dag" : options.extractor;
  settings.ilp_cycles =
      extract::parse_cycle_handling(options.ilp_cycles == "int" ? "integer" : options.ilp_cycles);
  settings.ilp_time_limit_seconds = options.ilp_time_limit;
  settings.ilp_solver = options.ilp_solver;
  settings.backoff_scheduler = options.backoff;
  return settings;
}

// The lines printed after the summary table: how exploration stopped, what the match limit,
// the cycle filter and the extractor did.
std::string describe_run(const eqsat::OptimizeResult& result,
                         const eqsat::OptimizeOptions& settings) {
  const std::string stopped_by =
      result.growth_stopped_by == "node budget"
          ? "the node budget (" + std::to_string(result.node_limit_used) +
                " nodes for this input; --node-limit or --no-budget to grow further)"
      : result.exploration.stop_reason ? result.exploration.stop_reason->to_string()
                                       : std::string("nothing");
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line,
                "exploration: %zu iterations, stopped by %s, %zu e-nodes, %zu e-classes, %.3f s\n",
                result.exploration.iterations, stopped_by.c_str(), result.exploration.egraph_nodes,
                result.exploration.egraph_classes, result.explore_seconds);
  text += line;
  if (!result.rules_at_match_limit.empty()) {
    std::snprintf(line, sizeof line,
                  "match limit: %zu rule(s) found %zu matches in an iteration and took no more: ",
                  result.rules_at_match_limit.size(), result.multi_pattern_match_limit);
    text += line +
            join(result.rules_at_match_limit, ", ", [](const std::string& name) { return name; }) +
            "\n";
  }
  std::snprintf(line, sizeof line, "cycle filter (%s): %zu nodes filtered, %zu matches skipped\n",
                std::string(eqsat::to_string(settings.cycle_filter)).c_str(), result.filtered_nodes,
                result.cycle_prefilter_rejections);
  text += line;
  const std::string extractor =
      settings.extractor +
      (result.extraction.solver.empty() ? "" : ", solver " + result.extraction.solver);
  std::snprintf(line, sizeof line, "extraction (%s): %s%s, %.3f s", extractor.c_str(),
                result.extraction.status.c_str(),
                result.extraction.proven_optimal ? ", proven optimal" : "", result.extract_seconds);
  return text + line;
}

nlohmann::json matched_rules(const eqsat::OptimizeResult& result) {
  nlohmann::json rules = nlohmann::json::array();
  for (const eqsat::RuleStats& rule : result.rules) {
    if (rule.applied + rule.shape_rejected + rule.cycle_rejected + rule.condition_rejected +
            rule.split_rejected ==
        0) {
      continue;
    }
    rules.push_back({{"rule", rule.rule},
                     {"applied", rule.applied},
                     {"shape_rejected", rule.shape_rejected},
                     {"condition_rejected", rule.condition_rejected},
                     {"cycle_rejected", rule.cycle_rejected},
                     {"split_rejected", rule.split_rejected}});
  }
  return rules;
}

// What the extractor counted (e.g. greedy DAG's node evaluations and reuse switches, the ILP's
// rows, cuts and solver rounds), by name.
nlohmann::json extraction_statistics(const extract::ExtractionResult& extraction) {
  nlohmann::json statistics = nlohmann::json::object();
  for (const auto& [name, value] : extraction.statistics) statistics[name] = value;
  return statistics;
}

}  // namespace

SearchOutcome run_equality_saturation(const ir::Graph& graph, const eqsat::RuleSet& rules,
                                      const FusionLibraries& fusions, const cost::CostModel& model,
                                      const PipelineOptions& options, const Deadline& deadline,
                                      const std::string& egraph_json_path,
                                      const std::string& egraph_dot_path) {
  eqsat::OptimizeOptions settings = saturation_settings(options);
  settings.deadline = deadline;
  size_t pypm_rules = 0;
  for (const std::string& path : options.pypm_files) {
    auto module = std::make_shared<const pm::Module>(pm::load_pmb(path));
    check_rule_names(*module, path);
    pypm_rules += module->rules.size();
    add_pypm_rules(settings, module);
  }
  for (const auto& library : fusions) {
    pypm_rules += library->rules.size();
    add_pypm_rules(settings, library);
  }
  settings.egraph_json_path = egraph_json_path;
  settings.egraph_dot_path = egraph_dot_path;

  std::fprintf(stderr, "optimizing %s: %zu operators, %zu rules", printable(graph.name()).c_str(),
               graph.num_operators(), rules.size());
  if (pypm_rules > 0) std::fprintf(stderr, " + %zu PyPM rules", pypm_rules);
  if (!fusions.empty()) std::fprintf(stderr, " (target %s)", options.target.c_str());
  std::fprintf(stderr, "\n");
  eqsat::OptimizeResult result = eqsat::optimize(graph, rules, model, settings);

  SearchOutcome outcome;
  outcome.original_cost = result.original_cost;
  outcome.optimized_cost = result.optimized_cost;
  outcome.kept_original = result.kept_original;
  outcome.stop_description = describe_run(result, settings);
  outcome.report = {
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
      {"extraction_statistics", extraction_statistics(result.extraction)},
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
      {"fusions", options.fusions.empty() ? std::vector<std::string>{"all"} : options.fusions},
      {"extracted_fused_operators", fused_operator_counts(graph, result.graph)},
      {"rules", matched_rules(result)},
      {"rule_count", result.rules.size()},
      {"exploration", nlohmann::json::parse(result.exploration.to_json(true, -1))}};
  outcome.graph = std::move(result.graph);
  return outcome;
}

}  // namespace saturate::driver
