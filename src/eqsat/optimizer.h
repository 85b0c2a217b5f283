#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "egraph/run_report.h"
#include "eqsat/cycle_filter.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/rule_file.h"
#include "extract/extraction_result.h"
#include "extract/extractor.h"
#include "ir/graph.h"
#include "support/deadline.h"

namespace saturate::eqsat {

// Rewrites from outside the rule-file language (PyPM), built against the run's cycle filter,
// with a way to read their per-rule statistics after the run.
struct ExtraRules {
  std::vector<TensorRewrite> rewrites;
  std::function<std::vector<RuleStats>()> stats;
};
using ExtraRuleSource = std::function<ExtraRules(CycleFilter*)>;

// Growth bounded by the input's size, so that a small model cannot grow a huge e-graph (an
// 18-operator attention block reached 50,000 nodes and two minutes of ILP): with
// `node_budget_per_operator` k, exploration stops at min(node_limit, max(kMinNodeBudget, k x
// operators)) nodes; with `multi_pattern_matches_per_operator` m, each multi-pattern rule takes at
// most max(kMinMultiPatternMatches, m x operators) matches per iteration (a multi-pattern whose
// patterns share no variable matches every pair: 10^8 pairs on a chain of 10,000 Relu). 0 turns
// a budget off. The bundled paper models saturate well inside both (bench/budgets.py).
inline constexpr size_t kMinNodeBudget = 2'000;
inline constexpr size_t kMinMultiPatternMatches = 10'000;

// The paper's settings are the defaults: 50,000 nodes, 15 iterations, multi-pattern rules in the
// first iteration only, efficient cycle filtering, ILP extraction without cycle constraints; plus
// the budgets above.
struct OptimizeOptions {
  size_t node_limit = 50'000;
  size_t node_budget_per_operator = 100;
  size_t multi_pattern_matches_per_operator = 4;
  size_t iteration_limit = 15;
  size_t multi_pattern_iterations = 1;  // k_multi
  // Multi-pattern matches whose patterns land on one class too (RuleCompiler).
  bool multi_pattern_same_class = false;
  double time_limit_seconds = 3600;  // exploration
  // The whole search (measuring costs, exploration, extraction) ends by then: each phase takes a
  // share of what is left (optimizer.cpp), and costs not measured in time are priced by the
  // cost model's fallback.
  Deadline deadline = Deadline::never();
  CycleFilterMode cycle_filter = CycleFilterMode::Efficient;
  std::string extractor = "ilp";  // see extract::make_extractor
  extract::CycleHandling ilp_cycles = extract::CycleHandling::none;
  double ilp_time_limit_seconds = 600;
  std::string ilp_solver = "auto";  // extract::make_milp_solver: auto, highs, cbc
  bool backoff_scheduler = false;   // TENSAT applies every match (egg's SimpleScheduler)
  // When set, the explored e-graph is written there as egraph-serialize JSON (with costs and the
  // filter list) before extraction, for other extractors and extraction-gym.
  std::string egraph_json_path;
  // When set, the explored e-graph is written there as Graphviz DOT.
  std::string egraph_dot_path;
  // Applied alongside the rules (see ExtraRules).
  std::vector<ExtraRuleSource> extra_rules;
};

struct OptimizeResult {
  ir::Graph graph;                  // the extracted graph
  double original_cost = 0;         // cost::graph_cost of the input, ms
  double optimized_cost = 0;        // cost::graph_cost of the extracted graph, ms
  double extracted_dag_cost = 0;    // what the extractor computed on the e-graph
  double extracted_graph_cost = 0;  // cost::graph_cost of the extracted graph
  // The extracted graph cost more than the input (greedy extraction can do that: it cannot see
  // sharing), so the input is returned unchanged.
  bool kept_original = false;
  egraph::RunReport exploration;  // iterations, stop reason, sizes, per-phase time
  std::vector<RuleStats> rules;   // per rule: applied and rejected matches
  extract::ExtractionResult extraction;
  // The limits in force (node_limit or the smaller node budget; the multi-pattern match limit,
  // 0 when none), and what stopped growth: "node budget", "node limit", "iteration limit",
  // "time limit", "saturated"; plus the multi-pattern rules that reached their match limit.
  size_t node_limit_used = 0;
  size_t multi_pattern_match_limit = 0;
  std::string growth_stopped_by;
  std::vector<std::string> rules_at_match_limit;
  size_t filtered_nodes = 0;  // nodes the cycle filter hid
  size_t cycle_prefilter_rejections = 0;
  double cycle_filter_seconds = 0;
  double explore_seconds = 0;
  double extract_seconds = 0;

  double speedup_percent() const {
    return optimized_cost > 0 ? 100.0 * (original_cost / optimized_cost - 1.0) : 0.0;
  }
};

// Equality saturation then extraction: the graph goes into an e-graph, the rules are applied
// until a limit or saturation, and the cheapest equivalent graph under the cost model is taken
// out; never a graph that costs more than the input. Throws saturate::Error when the graph
// cannot be represented or no graph is extracted.
OptimizeResult optimize(const ir::Graph& graph, const RuleSet& rules, const cost::CostModel& model,
                        const OptimizeOptions& options = {});

}  // namespace saturate::eqsat
