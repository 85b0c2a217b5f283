#include "search/taso_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <unordered_set>
#include <utility>

#include "cost/graph_cost.h"
#include "search/candidate_queue.h"
#include "search/exact_cost.h"
#include "search/match_applier.h"
#include "support/error.h"

namespace saturate::search {

std::string_view to_string(TasoStopReason reason) {
  switch (reason) {
    case TasoStopReason::Budget:
      return "budget";
    case TasoStopReason::TimeLimit:
      return "time limit";
    case TasoStopReason::Exhausted:
      return "exhausted";
  }
  return "unknown";
}

namespace {

void check_options(const TasoOptions& options) {
  if (!(options.alpha > 0) || !std::isfinite(options.alpha)) {
    throw Error("TASO search: alpha must be a positive number (TASO uses 1.0 to 1.05)");
  }
  if (!(options.max_growth > 0)) throw Error("TASO search: max_growth must be positive");
  if (!(options.time_limit_seconds >= 0)) {
    throw Error("TASO search: the time limit must not be negative");
  }
}

// Counts a match that produced no candidate graph; false if it did produce one.
bool count_rejection(MatchOutcome outcome, CandidateCounts& counts) {
  switch (outcome) {
    case MatchOutcome::Rewritten:
      return false;
    case MatchOutcome::ShapeRejected:
      ++counts.shape_rejected;
      break;
    case MatchOutcome::ConditionRejected:
      ++counts.condition_rejected;
      break;
    case MatchOutcome::SplitRejected:
      ++counts.split_rejected;
      break;
    case MatchOutcome::Unchanged:
      ++counts.unchanged;
      break;
    case MatchOutcome::Cyclic:
      ++counts.cycle_rejected;
      break;
  }
  return true;
}

}  // namespace

TasoResult taso_search(const ir::Graph& graph, const eqsat::RuleSet& rules,
                       const cost::CostModel& model, const TasoOptions& options) {
  check_options(options);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // No cycle filter: each candidate is one graph, checked for cycles as a whole (TASO's
  // has_loop), after the rule's own checks.
  eqsat::RuleCompiler compiler(nullptr);
  const std::vector<eqsat::TensorRewrite> rewrites = compiler.compile(rules);

  TasoResult result;
  result.graph = graph;
  const cost::GraphCost input_cost = cost::graph_cost(graph, model);
  result.original_cost = input_cost.total;
  ExactCost best_cost = 0;
  for (double price : input_cost.per_node) best_cost += exact_cost(price);
  std::vector<uint32_t> best_path;
  // TASO's bestCost: the cheapest graph taken off the queue so far. The threshold follows it,
  // not the cheapest graph generated, as in TASO's Graph::optimize.
  ExactCost expanded_best = best_cost;
  const double max_nodes = options.max_growth * static_cast<double>(graph.num_nodes());
  std::unordered_set<uint64_t> seen;
  CandidateQueue queue;
  queue.push(Candidate{graph, best_cost, {}});
  CandidateCounts& counts = result.candidates;

  bool out_of_time = false;
  while (true) {
    if (result.expansions >= options.budget) {
      result.stop_reason = TasoStopReason::Budget;
      break;
    }
    if (queue.empty()) {
      result.stop_reason = TasoStopReason::Exhausted;
      break;
    }
    if (elapsed() >= options.time_limit_seconds) {
      result.stop_reason = TasoStopReason::TimeLimit;
      break;
    }
    Candidate current = queue.pop();
    expanded_best = std::min(expanded_best, current.cost);
    ++result.expansions;
    const double threshold = options.alpha * static_cast<double>(expanded_best);
    // Only this many more graphs will be expanded: the queue holds no more than that.
    const size_t remaining = options.budget - result.expansions;

    MatchApplier applier(current.graph, rewrites, compiler.stats(), model);
    seen.insert(applier.graph_hash());
    for (size_t i = 0; i < applier.match_count(); ++i) {
      if (elapsed() >= options.time_limit_seconds) {
        out_of_time = true;
        break;
      }
      ++counts.matches;
      const AppliedMatch applied = applier.apply(i);
      if (count_rejection(applied.outcome, counts)) continue;
      ++counts.generated;
      // Hashes of rejected graphs stay in the set: the size limit is fixed and the threshold
      // only falls, so a graph rejected once would be rejected again.
      if (!seen.insert(applied.hash).second) {
        ++counts.duplicate_rejected;
        continue;
      }
      if (static_cast<double>(applied.nodes) >= max_nodes) {
        ++counts.too_large_rejected;
        continue;
      }
      if (!(static_cast<double>(applied.cost) < threshold)) {
        ++counts.too_costly_rejected;
        continue;
      }
      ++counts.kept;
      const bool new_best = applied.cost < best_cost;
      const bool queued = queue.would_keep(applied.cost, remaining);
      if (!new_best && !queued) continue;  // kept, but it could never be expanded
      ir::Graph next = applier.rewritten_graph();
      std::vector<uint32_t> path = current.path;
      path.push_back(static_cast<uint32_t>(applied.rule));
      if (new_best) {
        best_cost = applied.cost;
        result.graph = next;
        result.seconds_to_best = elapsed();
        result.expansion_of_best = result.expansions;
        best_path = path;
      }
      if (queued) {
        queue.push(Candidate{std::move(next), applied.cost, std::move(path)});
        queue.trim(remaining);
      }
    }
    result.max_queue_size = std::max(result.max_queue_size, queue.size());
    if (options.progress) {
      options.progress(TasoProgress{result.expansions, milliseconds(current.cost),
                                    milliseconds(best_cost), queue.size(), counts.kept, elapsed()});
    }
    if (out_of_time) {
      result.stop_reason = TasoStopReason::TimeLimit;
      break;
    }
  }

  result.optimized_cost =
      best_path.empty() ? result.original_cost : cost::graph_cost(result.graph, model).total;
  for (uint32_t rule : best_path) result.best_path.push_back(rewrites[rule].name());
  result.rules = compiler.stats();
  result.total_seconds = elapsed();
  return result;
}

}  // namespace saturate::search
