#include "eqsat/optimizer.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>

#include "cost/graph_cost.h"
#include "eqsat/egraph_dot.h"
#include "eqsat/extraction_bridge.h"
#include "eqsat/graph_conversion.h"
#include "extract/egraph_json.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::eqsat {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Records the configurations a pass prices (and prices them at zero), so that a measured model
// can be asked to time them all in one batch before the real pass.
class ConfigCollector : public cost::CostModel {
 public:
  std::string name() const override { return "collector"; }
  double op_cost(const cost::OpConfig& config) const override {
    configs.push_back(cost::OwnedOpConfig::from(config));
    return 0;
  }
  mutable std::vector<cost::OwnedOpConfig> configs;
};

size_t saturating_product(size_t a, size_t b) {
  size_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<size_t>::max() : product;
}

std::string describe_stop(const egraph::RunReport& report, size_t node_limit_used,
                          size_t node_limit) {
  if (!report.stop_reason) return "not run";
  using Kind = egraph::StopReason::Kind;
  switch (report.stop_reason->kind) {
    case Kind::NodeLimit:
      return node_limit_used < node_limit ? "node budget" : "node limit";
    case Kind::IterationLimit:
      return "iteration limit";
    case Kind::TimeLimit:
      return "time limit";
    case Kind::Saturated:
      return "saturated";
    case Kind::Hook:
      return "hook: " + report.stop_reason->message;
  }
  return "unknown";
}

// `fraction` of the time left before `deadline`, from now (never stays never).
Deadline share_of(const Deadline& deadline, double fraction) {
  return deadline.is_never() ? deadline : Deadline::after(deadline.seconds_left() * fraction);
}

// The shares of the search's deadline: measuring the input's operators, exploring, then
// measuring the e-graph's; extraction gets the rest.
constexpr double kInputMeasureShare = 0.3;
constexpr double kExploreShare = 0.4;
constexpr double kEGraphMeasureShare = 0.5;

}  // namespace

OptimizeResult optimize(const ir::Graph& graph, const RuleSet& rules, const cost::CostModel& model,
                        const OptimizeOptions& options) {
  OptimizeResult result;
  result.graph = graph;
  if (model.wants_prepare()) {
    ConfigCollector collector;
    cost::graph_cost(graph, collector);
    model.set_measurement_deadline(share_of(options.deadline, kInputMeasureShare));
    model.prepare(collector.configs);
  }
  result.original_cost = cost::graph_cost(graph, model).total;

  auto explore_start = std::chrono::steady_clock::now();
  CycleFilter filter(options.cycle_filter);
  RuleCompiler compiler(&filter);
  compiler.allow_same_class_multi_matches(options.multi_pattern_same_class);
  std::vector<TensorRewrite> rewrites = compiler.compile(rules);
  std::vector<ExtraRules> extras;
  for (const ExtraRuleSource& source : options.extra_rules) {
    extras.push_back(source(&filter));
    for (TensorRewrite& rewrite : extras.back().rewrites) rewrites.push_back(std::move(rewrite));
  }

  TensorRunner runner;
  filter.attach(runner.egraph);
  GraphRoot root = add_graph(runner.egraph, graph);
  runner.roots.push_back(root.root);
  const size_t operators = std::max<size_t>(graph.num_operators(), 1);
  result.node_limit_used = options.node_limit;
  if (options.node_budget_per_operator > 0) {
    result.node_limit_used = std::min(
        options.node_limit,
        std::max(kMinNodeBudget, saturating_product(options.node_budget_per_operator, operators)));
  }
  if (options.multi_pattern_matches_per_operator > 0) {
    result.multi_pattern_match_limit =
        std::max(kMinMultiPatternMatches,
                 saturating_product(options.multi_pattern_matches_per_operator, operators));
    runner.with_multi_pattern_match_limit(result.multi_pattern_match_limit);
  }
  runner.with_node_limit(result.node_limit_used)
      .with_iteration_limit(options.iteration_limit)
      .with_time_limit(std::chrono::duration<double>(
          std::min(options.time_limit_seconds, options.deadline.seconds_left() * kExploreShare)))
      .with_multi_pattern_iteration_limit(options.multi_pattern_iterations);
  if (!options.backoff_scheduler)
    runner.with_scheduler(std::make_unique<egraph::SimpleScheduler>());
  runner.with_hook([&filter](TensorRunner& r) {
    filter.begin_iteration(r.egraph);
    return true;
  });
  runner.with_iteration_end_hook([&filter](TensorRunner& r) {
    filter.remove_cycles(r.egraph);
    return true;
  });
  runner.run(rewrites);
  // Cycles can also come from the last iteration's congruence closure, or from a stop inside
  // an iteration; the extractor must see an acyclic e-graph.
  filter.remove_cycles(runner.egraph);
  result.explore_seconds = seconds_since(explore_start);
  result.exploration = runner.report();
  result.growth_stopped_by =
      describe_stop(result.exploration, result.node_limit_used, options.node_limit);
  for (const auto& iteration : runner.iterations) {
    for (const auto& rule : iteration.rules) {
      if (rule.at_match_limit &&
          std::find(result.rules_at_match_limit.begin(), result.rules_at_match_limit.end(),
                    rule.rule) == result.rules_at_match_limit.end()) {
        result.rules_at_match_limit.push_back(rule.rule);
      }
    }
  }
  // Matches the limit held back were never tried: the e-graph is saturated only within it.
  if (result.growth_stopped_by == "saturated" && !result.rules_at_match_limit.empty())
    result.growth_stopped_by = "saturated within the multi-pattern match limit";
  result.rules = compiler.stats();
  for (const ExtraRules& extra : extras) {
    for (RuleStats& stats : extra.stats()) result.rules.push_back(std::move(stats));
  }
  result.filtered_nodes = filter.filtered_count();
  result.cycle_prefilter_rejections = filter.prefilter_rejections();
  result.cycle_filter_seconds = filter.check_seconds() + filter.postpass_seconds();

  auto extract_start = std::chrono::steady_clock::now();
  if (model.wants_prepare()) {
    ConfigCollector collector;
    make_extraction_view(runner.egraph, runner.egraph.find(root.root), collector);
    model.set_measurement_deadline(share_of(options.deadline, kEGraphMeasureShare));
    model.prepare(collector.configs);
  }
  // Anything priced from here on was announced above; pricing it late costs no measurement.
  model.set_measurement_deadline(options.deadline);
  ExtractionView view = make_extraction_view(runner.egraph, runner.egraph.find(root.root), model);
  if (!options.egraph_dot_path.empty()) {
    write_file_atomically(options.egraph_dot_path,
                          write_egraph_dot(runner.egraph, runner.egraph.find(root.root)));
  }
  if (!options.egraph_json_path.empty()) {
    extract::write_egraph_json(options.egraph_json_path, view.graph);
  }
  auto extractor = extract::make_extractor(options.extractor);
  extract::ExtractOptions extract_options;
  extract_options.time_limit_seconds = options.ilp_time_limit_seconds;
  extract_options.deadline = options.deadline;
  extract_options.cycles = options.ilp_cycles;
  extract_options.solver = options.ilp_solver;
  result.extraction = extractor->extract(view.graph, extract_options);
  if (result.extraction.found && !result.extraction.acyclic &&
      options.ilp_cycles == extract::CycleHandling::none && options.extractor == "ilp") {
    // Filtering should have left no cycle; if one is chosen anyway, cut it lazily.
    extract_options.cycles = extract::CycleHandling::lazy;
    result.extraction = extractor->extract(view.graph, extract_options);
  }
  if (!result.extraction.found || !result.extraction.acyclic) {
    throw Error("extraction (" + options.extractor +
                ") found no acyclic graph: " + result.extraction.status);
  }
  result.extracted_dag_cost = result.extraction.dag_cost;
  result.graph = extract_graph(runner.egraph, root, choice_of(view, result.extraction));
  result.extract_seconds = seconds_since(extract_start);
  result.extracted_graph_cost = cost::graph_cost(result.graph, model).total;
  result.optimized_cost = result.extracted_graph_cost;
  if (result.extracted_graph_cost > result.original_cost) {
    result.graph = graph;
    result.optimized_cost = result.original_cost;
    result.kept_original = true;
  }
  return result;
}

}  // namespace saturate::eqsat
