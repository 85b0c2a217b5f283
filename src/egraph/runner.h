#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/rewrite.h"
#include "egraph/run_report.h"
#include "egraph/scheduler.h"
#include "egraph/search_cache.h"
#include "support/error.h"

namespace saturate::egraph {

// Runs rewrites to saturation or to a limit (egg's Runner). Each iteration searches every rule on
// the clean e-graph, then applies all matches, then rebuilds once; statistics for each iteration
// are kept in `iterations` and summed by report().
//
//   Runner<Symbol> runner;
//   runner.with_node_limit(5000).with_iteration_limit(10);
//   EClassId root = runner.add_term(Term<Symbol>::parse("(+ a (+ b c))"));
//   runner.run(rules);
//   runner.report().to_json();            // stop reason, sizes, times, per-iteration stats
//
// Hooks for callers that need to steer a run (TENSAT's cycle filtering, say):
//   with_hook               before each iteration; returning false stops the run;
//   with_match_filter       sees each match before it is applied; returning false skips it;
//   with_iteration_end_hook after each iteration's rebuild; returning false stops the run.
// Multi-pattern rules can be limited to the first k iterations (TENSAT's k_multi), since they
// can grow the e-graph doubly exponentially.
template <Operator Op, typename A = NoAnalysis>
class Runner {
 public:
  using Graph = EGraph<Op, A>;
  using Rule = Rewrite<Op, A>;
  using Hook = std::function<bool(Runner&)>;
  using MatchFilter = std::function<bool(const Graph&, const Rule&, const Match&)>;
  using Clock = std::chrono::steady_clock;

  explicit Runner(A analysis = A{})
      : egraph(std::move(analysis)), scheduler_(std::make_unique<BackoffScheduler>()) {}
  explicit Runner(Graph graph)
      : egraph(std::move(graph)), scheduler_(std::make_unique<BackoffScheduler>()) {}

  // Stop once the e-graph has more than this many e-nodes. Default 10,000.
  Runner& with_node_limit(std::size_t limit) {
    node_limit_ = limit;
    return *this;
  }
  // Stop after this many iterations. Default 30.
  Runner& with_iteration_limit(std::size_t limit) {
    iteration_limit_ = limit;
    return *this;
  }
  // Stop once a run has taken longer than this (checked between rules). Default 5 seconds.
  Runner& with_time_limit(std::chrono::duration<double> limit) {
    time_limit_ = limit;
    return *this;
  }
  // Multi-pattern rules run only in the first k iterations. Default: no limit.
  Runner& with_multi_pattern_iteration_limit(std::size_t limit) {
    multi_pattern_iteration_limit_ = limit;
    return *this;
  }
  // At most this many matches per multi-pattern rule and iteration (on top of the scheduler's
  // limit): a multi-pattern whose patterns share no variable matches every pair of nodes, so
  // its matches grow with the square of the e-graph. Default: no limit.
  Runner& with_multi_pattern_match_limit(std::size_t limit) {
    multi_pattern_match_limit_ = limit;
    return *this;
  }
  // Default: BackoffScheduler with its defaults.
  Runner& with_scheduler(std::unique_ptr<Scheduler> scheduler) {
    scheduler_ = std::move(scheduler);
    return *this;
  }
  Runner& with_hook(Hook hook) {
    hooks_.push_back(std::move(hook));
    return *this;
  }
  Runner& with_iteration_end_hook(Hook hook) {
    iteration_end_hooks_.push_back(std::move(hook));
    return *this;
  }
  // Semi-naive evaluation, as egglog does it: a rule whose every match was applied at generation
  // g (EGraph::generation) is searched afterwards only for matches that use a node stamped after
  // g. The old matches would be no-ops (their right-hand sides are already merged), so the
  // e-graph grows exactly as without it; the searches and the apply phase get cheaper. Used only
  // where that is exact (Rewrite::supports_incremental_search, no node filter on the e-graph);
  // a rule with a match that a filter, its condition, the scheduler or a limit held back keeps
  // its old generation, so those matches are found again. Default: off.
  Runner& with_incremental_search(bool on = true) {
    incremental_search_ = on;
    return *this;
  }

  Runner& with_match_filter(MatchFilter filter) {
    match_filters_.push_back(std::move(filter));
    return *this;
  }

  // Adds a term and records its class as a root.
  EClassId add_term(const Term<Op>& term) {
    EClassId root = egraph.add_term(term);
    roots.push_back(root);
    return root;
  }

  // Runs until a stop reason; may be called again to continue with other rules (the limits then
  // apply to the whole history: iterations and time count from the first run). Throws
  // saturate::Error if two rules share a name.
  Runner& run(const std::vector<Rule>& rules) {
    std::vector<std::string> names;
    names.reserve(rules.size());
    for (const Rule& rule : rules) {
      for (const std::string& name : names) {
        if (name == rule.name()) throw Error("two rewrites are named '" + name + "'");
      }
      names.push_back(rule.name());
    }
    if (!started_) {
      start_time_ = Clock::now();
      started_ = true;
    }
    scheduler_->start(names);
    // Generations are per rule list: another run() may bring other rules.
    applied_through_.assign(rules.size(), 0);
    egraph.rebuild();
    stop_reason = check_limits(iterations.size());
    if (stop_reason) return *this;
    for (;;) {
      Iteration iteration = run_one(rules);
      std::optional<StopReason> reason = iteration.stop_reason;
      if (!reason) reason = check_limits(iterations.size() + 1);
      iteration.stop_reason = reason;
      iterations.push_back(std::move(iteration));
      if (reason) {
        stop_reason = reason;
        return *this;
      }
    }
  }

  RunReport report() const {
    RunReport report;
    report.iterations = iterations.size();
    report.stop_reason = stop_reason;
    report.egraph_nodes = egraph.node_count();
    report.egraph_classes = egraph.class_count();
    report.memo_size = egraph.memo_size();
    report.rebuilds = egraph.rebuild_count();
    for (const Iteration& iteration : iterations) {
      report.applied += iteration.applied;
      report.hook_seconds += iteration.hook_seconds;
      report.search_seconds += iteration.search_seconds;
      report.apply_seconds += iteration.apply_seconds;
      report.rebuild_seconds += iteration.rebuild_seconds;
      report.total_seconds += iteration.total_seconds;
    }
    report.iteration_stats = iterations;
    return report;
  }

  std::size_t node_limit() const { return node_limit_; }
  std::size_t iteration_limit() const { return iteration_limit_; }
  std::chrono::duration<double> time_limit() const { return time_limit_; }

  Graph egraph;
  std::vector<EClassId> roots;
  std::vector<Iteration> iterations;
  std::optional<StopReason> stop_reason;

 private:
  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  // `iterations_done` counts the current one once it is complete.
  std::optional<StopReason> check_limits(std::size_t iterations_done) const {
    if (Clock::now() - start_time_ > time_limit_)
      return StopReason::time_limit(time_limit_.count());
    if (egraph.node_count() > node_limit_) return StopReason::node_limit(node_limit_);
    if (iterations_done >= iteration_limit_) return StopReason::iteration_limit(iteration_limit_);
    return std::nullopt;
  }

  bool run_hooks(std::vector<Hook>& hooks, Iteration& iteration, const std::string& what) {
    for (Hook& hook : hooks) {
      if (!hook(*this)) {
        iteration.stop_reason = StopReason::hook(what);
        return false;
      }
    }
    return true;
  }

  Iteration run_one(const std::vector<Rule>& rules) {
    Clock::time_point start = Clock::now();
    Iteration iteration;
    iteration.index = iterations.size();
    iteration.egraph_nodes = egraph.node_count();
    iteration.egraph_classes = egraph.class_count();
    std::size_t i = iteration.index;

    bool go_on = run_hooks(hooks_, iteration, "before iteration " + std::to_string(i));
    iteration.hook_seconds = seconds_since(start);

    // Search every rule on the same clean e-graph.
    Clock::time_point search_start = Clock::now();
    // Kept from iteration to iteration: their capacity saves reallocating (and re-faulting)
    // hundreds of megabytes of matches on large runs.
    // Rules that allow it (Rewrite::applies_from_rows) keep their matches as rows of classes,
    // when no match filter needs Match objects.
    std::vector<std::vector<Match>>& matches = match_buffers_;
    std::vector<std::vector<EClassId>>& rows = row_buffers_;
    matches.resize(rules.size());
    rows.resize(rules.size());
    for (std::vector<Match>& buffer : matches) buffer.clear();
    for (std::vector<EClassId>& buffer : rows) buffer.clear();
    std::vector<bool> as_rows(rules.size(), false);
    for (std::size_t r = 0; r < rules.size(); ++r)
      as_rows[r] = match_filters_.empty() && rules[r].applies_from_rows();
    std::vector<std::size_t> stats_of(rules.size(), kNoLimit);
    // Per rule: whether applying every match found now settles the rule through this generation.
    std::vector<bool> may_advance(rules.size(), false);
    const std::uint32_t generation = egraph.generation();
    if (go_on) {
      PatternSearchCache<Graph> cache(egraph);
      std::vector<std::size_t> limits(rules.size(), 0);
      for (std::size_t r = 0; r < rules.size(); ++r) {
        if (rules[r].is_multi_pattern() && i >= multi_pattern_iteration_limit_) continue;
        limits[r] = scheduler_->search_limit(r, i);
        if (rules[r].is_multi_pattern())
          limits[r] = std::min(limits[r], multi_pattern_match_limit_);
        if (limits[r] > 0) rules[r].announce_searches(cache, since_for(rules[r], r));
      }
      for (std::size_t r = 0; r < rules.size(); ++r) {
        std::size_t limit = limits[r];
        if (limit == 0) continue;
        bool incremental = can_search_incrementally(rules[r]);
        std::uint32_t since = since_for(rules[r], r);
        std::size_t found = 0;
        if (as_rows[r]) {
          rules[r].search_rows(cache, limit, since, rows[r]);
          found = rows[r].size() / rules[r].row_width();
        } else {
          rules[r].search_into(cache, limit, since, matches[r]);
          found = matches[r].size();
        }
        bool accepted = scheduler_->accept_matches(r, i, found);
        may_advance[r] = incremental && accepted && found < limit;
        if (found > 0 || !accepted) {
          stats_of[r] = iteration.rules.size();
          iteration.rules.push_back(
              RuleIterationStats{rules[r].name(), found, 0, 0, since > 0, !accepted,
                                 rules[r].is_multi_pattern() && found >= limit &&
                                     limit == multi_pattern_match_limit_});
        }
        if (!accepted) {
          matches[r].clear();
          rows[r].clear();
        }
        if ((iteration.stop_reason = check_limits(i))) break;
      }
      iteration.searches = cache.searches();
    }
    iteration.search_seconds = seconds_since(search_start);

    // Apply every match, then restore the invariants once.
    Clock::time_point apply_start = Clock::now();
    if (go_on && !iteration.stop_reason) {
      for (std::size_t r = 0; r < rules.size() && !iteration.stop_reason; ++r) {
        std::size_t applied = 0;
        std::size_t filtered = 0;
        std::size_t held_back = 0;  // by the rule's condition
        std::size_t since_check = 0;
        bool all_tried = true;
        // Every 64 applications: whether a limit stops the run.
        auto limit_hit = [&] {
          if (++since_check < 64) return false;
          since_check = 0;
          if (!(iteration.stop_reason = check_limits(i))) return false;
          all_tried = false;
          return true;
        };
        const std::size_t width = as_rows[r] ? rules[r].row_width() : 1;
        for (std::size_t row = 0; row < rows[r].size(); row += width) {
          applied += rules[r].apply_row(egraph, &rows[r][row]);
          if (limit_hit()) break;
        }
        for (const Match& match : matches[r]) {
          if (!passes_filters(rules[r], match)) {
            ++filtered;
            continue;
          }
          typename Rule::Applied outcome = rules[r].try_apply(egraph, match);
          applied += outcome.merges;
          if (!outcome.condition_held) ++held_back;
          if (limit_hit()) break;
        }
        if (may_advance[r] && all_tried && filtered == 0 && held_back == 0)
          applied_through_[r] = generation;
        if (!iteration.stop_reason) iteration.stop_reason = check_limits(i);
        if (stats_of[r] != kNoLimit) {
          iteration.rules[stats_of[r]].applied = applied;
          iteration.rules[stats_of[r]].filtered = filtered;
        }
        iteration.applied += applied;
      }
    }
    iteration.apply_seconds = seconds_since(apply_start);

    Clock::time_point rebuild_start = Clock::now();
    iteration.rebuild_unions = egraph.rebuild();
    iteration.rebuild_seconds = seconds_since(rebuild_start);

    Clock::time_point end_hook_start = Clock::now();
    if (go_on && !iteration.stop_reason) {
      run_hooks(iteration_end_hooks_, iteration, "after iteration " + std::to_string(i));
    }
    iteration.hook_seconds += seconds_since(end_hook_start);

    if (go_on && !iteration.stop_reason && iteration.applied == 0 &&
        egraph.node_count() == iteration.egraph_nodes &&
        egraph.class_count() == iteration.egraph_classes && scheduler_->can_stop(i)) {
      iteration.stop_reason = StopReason::saturated();
    }
    iteration.total_seconds = seconds_since(start);
    return iteration;
  }

  bool can_search_incrementally(const Rule& rule) const {
    return incremental_search_ && rule.supports_incremental_search() && !egraph.node_filter();
  }
  // The generation rule r is searched since (0: all matches).
  std::uint32_t since_for(const Rule& rule, std::size_t r) const {
    return can_search_incrementally(rule) ? applied_through_[r] : 0;
  }

  bool passes_filters(const Rule& rule, const Match& match) const {
    for (const MatchFilter& filter : match_filters_) {
      if (!filter(egraph, rule, match)) return false;
    }
    return true;
  }

  std::size_t node_limit_ = 10'000;
  std::size_t iteration_limit_ = 30;
  std::chrono::duration<double> time_limit_ = std::chrono::seconds(5);
  std::size_t multi_pattern_iteration_limit_ = kNoLimit;
  std::size_t multi_pattern_match_limit_ = kNoLimit;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<Hook> hooks_;
  std::vector<Hook> iteration_end_hooks_;
  std::vector<MatchFilter> match_filters_;
  bool incremental_search_ = false;
  // Per rule of the current run(): every match made of nodes stamped at most this generation
  // has been applied (0: none yet).
  std::vector<std::uint32_t> applied_through_;
  std::vector<std::vector<Match>> match_buffers_;   // per rule, for run_one
  std::vector<std::vector<EClassId>> row_buffers_;  // per rule, for run_one
  Clock::time_point start_time_;
  bool started_ = false;
};

}  // namespace saturate::egraph
