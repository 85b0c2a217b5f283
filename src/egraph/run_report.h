#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace saturate::egraph {

// Why a Runner stopped, with the limit that was hit.
struct StopReason {
  enum class Kind { Saturated, IterationLimit, NodeLimit, TimeLimit, Hook };

  Kind kind = Kind::Saturated;
  std::size_t limit = 0;  // iterations or nodes, for those limits
  double seconds = 0;     // for the time limit
  std::string message;    // for hooks

  static StopReason saturated() { return {Kind::Saturated, 0, 0, ""}; }
  static StopReason iteration_limit(std::size_t n) { return {Kind::IterationLimit, n, 0, ""}; }
  static StopReason node_limit(std::size_t n) { return {Kind::NodeLimit, n, 0, ""}; }
  static StopReason time_limit(double s) { return {Kind::TimeLimit, 0, s, ""}; }
  static StopReason hook(std::string why) { return {Kind::Hook, 0, 0, std::move(why)}; }

  // "saturated", "iteration_limit", "node_limit", "time_limit", "hook".
  std::string kind_name() const;
  // With the limit: "node limit (10000 nodes)".
  std::string to_string() const;
};

// One rule's part in one iteration.
struct RuleIterationStats {
  std::string rule;
  std::size_t matches = 0;      // found (at most the scheduler's limit); new ones only when the
                                // rule was searched incrementally
  std::size_t applied = 0;      // merges that changed the e-graph
  std::size_t filtered = 0;     // matches the runner's match filter vetoed
  bool incremental = false;     // searched for matches new since an earlier generation only
  bool banned = false;          // the scheduler dropped this iteration's matches
  bool at_match_limit = false;  // a multi-pattern rule that found as many as its match limit
};

// What one iteration did (egg's Iteration). Sizes are taken at the start of the iteration.
struct Iteration {
  std::size_t index = 0;
  std::size_t egraph_nodes = 0;
  std::size_t egraph_classes = 0;
  std::vector<RuleIterationStats> rules;  // the rules that matched or were banned
  std::size_t searches = 0;        // pattern searches run (canonical patterns are searched once)
  std::size_t applied = 0;         // sum over rules
  std::size_t rebuild_unions = 0;  // merges rebuild() made to restore congruence
  double hook_seconds = 0;
  double search_seconds = 0;
  double apply_seconds = 0;
  double rebuild_seconds = 0;
  double total_seconds = 0;
  std::optional<StopReason> stop_reason;  // set on the last iteration only

  std::string to_json() const;
};

// A run summed up (egg's Report), with every iteration.
struct RunReport {
  std::size_t iterations = 0;
  std::optional<StopReason> stop_reason;
  std::size_t egraph_nodes = 0;  // at the end
  std::size_t egraph_classes = 0;
  std::size_t memo_size = 0;
  std::size_t rebuilds = 0;
  std::size_t applied = 0;
  double hook_seconds = 0;
  double search_seconds = 0;
  double apply_seconds = 0;
  double rebuild_seconds = 0;
  double total_seconds = 0;
  std::vector<Iteration> iteration_stats;

  // A JSON object; "iteration_stats" lists the iterations when asked for.
  std::string to_json(bool with_iterations = true, int indent = 2) const;
  // A few lines for people.
  std::string to_string() const;
};

}  // namespace saturate::egraph
