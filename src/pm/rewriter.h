#pragma once

// Greedy destructive rewriting with a module's rules (docs/PYPM.md §2, "Rewriting").

#include <cstddef>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "pm/core.h"
#include "pm/matcher.h"

namespace saturate::pm {

struct RewriteOptions {
  // Full passes over the graph at most; reaching it is reported, not an error.
  size_t max_passes = 100;
  MatchOptions match;
};

struct RuleStatistics {
  std::string name;
  // Times the rule's pattern matched and the rule was considered (its guards evaluated).
  size_t matches = 0;
  // Times it fired and replaced a value.
  size_t applications = 0;
  // Times its guards held but the replacement would have been the matched value itself.
  size_t identity_skips = 0;
  // Times a further replacement (`return root, (s, t)`) would have made a value depend on
  // itself: t reads a value computed from s.
  size_t cycle_skips = 0;
};

struct RewriteResult {
  ir::Graph graph;
  std::vector<RuleStatistics> rules;  // one per rule of the module, in file order
  size_t passes = 0;                  // passes run, including the final one that found nothing
  size_t applications = 0;            // total over all rules
  bool hit_iteration_cap = false;     // the last pass still rewrote something
  double seconds = 0;
};

// Rewrites a copy of `graph` to a fixpoint. Each pass visits the alive values in topological
// order; at each used value it tries the definitions that have rules, in file order, skipping
// those whose root-operator index rules the value out. For each match (in the matcher's order)
// the first rule whose guards hold and whose replacement differs from the matched value fires:
// the replacement is built (shape-checked), every use of the matched value (graph outputs
// included) is redirected to it, and nodes left unused are dropped. Values created in a pass are
// visited from the next pass on.
//
// Throws PatternError for an invalid module, an ill-typed replacement (naming the rule and the
// shapes), or a matching error; `graph` itself is never modified.
RewriteResult rewrite(const ir::Graph& graph, const Module& module,
                      const RewriteOptions& options = {});

}  // namespace saturate::pm
