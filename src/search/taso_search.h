#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost_model.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/rule_file.h"
#include "ir/graph.h"

namespace saturate::search {

// Where the search stands after one expansion (for progress output).
struct TasoProgress {
  size_t expansions = 0;       // graphs expanded so far
  double expanded_cost = 0;    // cost of the graph just expanded
  double best_cost = 0;        // cheapest graph found so far
  size_t queue_size = 0;       // candidates waiting
  size_t candidates_kept = 0;  // so far
  double elapsed_seconds = 0;
};

// TASO's settings (its artifact's defaults are budget 100 and alpha 1.0 or 1.05).
struct TasoOptions {
  // A candidate is kept when it costs less than alpha times the cheapest graph expanded so far:
  // alpha > 1 lets the search pass through slightly costlier graphs.
  double alpha = 1.05;
  size_t budget = 100;  // graphs expanded (taken off the queue and rewritten), TASO's n
  double time_limit_seconds = 3600;
  // Candidates with at least this many times the input's nodes are dropped (TASO: 2).
  double max_growth = 2.0;
  std::function<void(const TasoProgress&)> progress;  // called after each expansion
};

// Every candidate graph the search made and what became of it. Each rule match tried yields
// exactly one of: kept, or one rejection.
struct CandidateCounts {
  size_t matches = 0;              // rule matches tried, each one potential candidate
  size_t generated = 0;            // rewritten graphs (rule applied, acyclic)
  size_t kept = 0;                 // new, small enough and cheap enough: queued
  size_t shape_rejected = 0;       // right-hand side did not type-check
  size_t condition_rejected = 0;   // a rule condition did not hold
  size_t split_rejected = 0;       // a matched split cuts elsewhere than the rule's concat
  size_t unchanged = 0;            // the rewrite changed nothing
  size_t cycle_rejected = 0;       // the rewritten graph would be cyclic
  size_t duplicate_rejected = 0;   // a graph seen before (by structural hash)
  size_t too_large_rejected = 0;   // more nodes than max_growth allows
  size_t too_costly_rejected = 0;  // not cheaper than alpha x best
};

enum class TasoStopReason {
  Budget,     // `budget` graphs were expanded
  TimeLimit,  // time_limit_seconds passed
  Exhausted,  // no candidate left to expand
};
std::string_view to_string(TasoStopReason reason);

struct TasoResult {
  ir::Graph graph;             // the cheapest graph found (the input if nothing was cheaper)
  double original_cost = 0;    // cost::graph_cost of the input, ms
  double optimized_cost = 0;   // cost::graph_cost of `graph`, ms
  size_t expansions = 0;       // graphs expanded
  CandidateCounts candidates;  //
  size_t max_queue_size = 0;   // most candidates waiting at once (after trimming, see .cpp)
  double total_seconds = 0;    // the whole search ("TASO total")
  // When the best graph was first generated, from the start ("TASO best"); 0 if no graph
  // cheaper than the input was found.
  double seconds_to_best = 0;
  size_t expansion_of_best = 0;        // during which expansion (1-based; 0: the input)
  std::vector<std::string> best_path;  // the rules applied, in order, from the input to `graph`
  TasoStopReason stop_reason = TasoStopReason::Exhausted;
  std::vector<eqsat::RuleStats> rules;  // per rule, over all matches tried

  double speedup_percent() const {
    return optimized_cost > 0 ? 100.0 * (original_cost / optimized_cost - 1.0) : 0.0;
  }
};

// TASO's cost-based backtracking search (Jia et al., SOSP 2019, Algorithm 2): a priority queue
// of graphs ordered by cost starts with the input; each step takes the cheapest graph off and
// applies every rule at every match, one at a time; a rewritten graph is queued if it is
// acyclic, new (by structural hash), not too large, and costs less than alpha times the best
// graph expanded so far. Stops after `budget` expansions, at the time limit, or when the queue
// is empty; returns the cheapest graph seen, never one that costs more than the input.
//
// The rules, their shape checks and conditions, and the cost model are the ones equality
// saturation uses (see MatchApplier), so comparing the two isolates the search. Throws
// saturate::Error when the graph cannot be represented (as eqsat::optimize does).
TasoResult taso_search(const ir::Graph& graph, const eqsat::RuleSet& rules,
                       const cost::CostModel& model, const TasoOptions& options = {});

}  // namespace saturate::search
