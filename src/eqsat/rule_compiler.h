#pragma once

#include <memory>
#include <string>
#include <vector>

#include "eqsat/cycle_filter.h"
#include "eqsat/rule_file.h"
#include "eqsat/tensor_egraph.h"

namespace saturate::eqsat {

// What happened to one rule's matches in a run, beyond the runner's own counts.
struct RuleStats {
  std::string rule;
  size_t applied = 0;             // matches that changed the e-graph
  size_t shape_rejected = 0;      // right-hand side did not type-check (TASO's shape rules)
  size_t condition_rejected = 0;  // an `if` condition did not hold
  size_t cycle_rejected = 0;      // applying would have closed a cycle
  size_t split_rejected = 0;      // a matched split cuts elsewhere than the rule's concat
};

// Turns rules into e-graph rewrites whose applier, for each match: checks the rule's
// conditions; checks that matched splits cut where the rule's own concats put the boundary;
// type-checks the right-hand side from the classes' shape facts and rejects it if it does not
// check; asks the cycle filter whether the new nodes would close a cycle; and only then adds the
// right-hand side and merges it with the matched class. Nothing is added for a rejected match.
class RuleCompiler {
 public:
  // `cycle_filter` may be null (no cycle checks before applying).
  explicit RuleCompiler(CycleFilter* cycle_filter) : cycle_filter_(cycle_filter) {}

  // Multi-pattern rules match only where their patterns land on different classes (default):
  // merging an operator with itself computes one tensor twice and never pays, but it floods the
  // e-graph (VGG-19 at k_multi 1: 552 e-nodes with such merges, 89 without) and hands the ILP
  // mirror-image choices. TASO merges two different operators only. A rule marked (unordered)
  // takes one order of its interchangeable parts (MultiPatternRule::unordered). `true`: any
  // combination, in every order: Algorithm 1 of the TENSAT paper as written.
  void allow_same_class_multi_matches(bool allow) { allow_same_class_ = allow; }

  std::vector<TensorRewrite> compile(const RuleSet& rules);

  // One entry per compiled rule, in compile() order; updated as the rewrites apply.
  const std::vector<RuleStats>& stats() const { return *stats_; }

 private:
  CycleFilter* cycle_filter_;
  bool allow_same_class_ = false;
  std::shared_ptr<std::vector<RuleStats>> stats_ = std::make_shared<std::vector<RuleStats>>();
};

// Adds `rhs` (its variables bound by match.subst as ?name) and merges it with the matched class,
// after the same checks compiled rules make: it must type-check to the class's type and must
// not close a cycle. Counts the outcome in `counts`; returns 1 if the e-graph changed. This is
// how rules from elsewhere (PyPM) are applied non-destructively.
size_t apply_replacement(TensorEGraph& egraph, const egraph::Match& match, const Term& rhs,
                         CycleFilter* filter, RuleStats& counts);

// A class and what it is to equal: a replacement beyond the matched root.
struct ClassReplacement {
  egraph::EClassId eclass;
  const Term* rhs;
};

// apply_replacement for several classes at once (a rule that replaces its root and values it
// matched on the way, such as a residual sum a fused kernel also computes): every replacement is
// planned and checked before anything is added, so a rejected one leaves no trace; then each is
// added and merged with its class (common subterms become one e-node). Returns how many merges
// changed the e-graph.
size_t apply_replacements(TensorEGraph& egraph, const egraph::Match& match,
                          const std::vector<ClassReplacement>& replacements, CycleFilter* filter,
                          RuleStats& counts);

// The e-graph pattern of a rule's left-hand side (exposed for tests). Splits get a hidden
// variable ?__cut<part>_<k> for the cut they record.
egraph::Pattern<TensorOp> compile_pattern(const Term& lhs, size_t part);

}  // namespace saturate::eqsat
