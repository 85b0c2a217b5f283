#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "eqsat/graph_conversion.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/tensor_egraph.h"
#include "ir/graph.h"
#include "search/exact_cost.h"

namespace saturate::search {

// What applying one rule match to one graph gave.
enum class MatchOutcome {
  Rewritten,          // a rewritten graph (maybe one seen before: the caller dedupes by hash)
  ShapeRejected,      // the right-hand side did not type-check (TASO's shape rules)
  ConditionRejected,  // an `if` condition of the rule did not hold
  SplitRejected,      // a matched split cuts elsewhere than the rule's concat
  Unchanged,          // the right-hand side already was the matched tensor
  Cyclic,             // the rewritten graph would feed an output back into its own inputs
};

struct AppliedMatch {
  MatchOutcome outcome = MatchOutcome::Unchanged;
  size_t rule = 0;  // index into the rewrites
  // Rewritten only: the rewritten graph's structural hash, its cost (what cost::graph_cost
  // charges for it, summed exactly) and its node count once extracted.
  uint64_t hash = 0;
  ExactCost cost = 0;
  size_t nodes = 0;
};

// One graph held in an e-graph of its own, with every match of every rewrite in it, and a way to
// apply one match at a time: TASO's "apply one substitution at one place", done with exactly
// the e-graph path's rules and checks (eqsat::RuleCompiler's appliers, shape analysis, conditions,
// split boundaries), so the two searches differ only in how they search.
//
// A match is applied to a copy of the e-graph; the rewritten graph is then read off by choosing,
// in every class, the node the graph had, except in the matched classes, which take the node the
// right-hand side added (or found). Right-hand sides reuse equal subterms already in the graph,
// by hash-consing. Hash, cost and size come from that choice without building the graph, so only
// candidates worth keeping are extracted (rewritten_graph).
class MatchApplier {
 public:
  // `stats` is the RuleCompiler's statistics vector, indexed like `rewrites`: it tells why an
  // applier declined a match. Multi-pattern matches whose source patterns share a root are
  // dropped (TASO maps each source operator to a distinct graph operator).
  MatchApplier(const ir::Graph& graph, const std::vector<eqsat::TensorRewrite>& rewrites,
               const std::vector<eqsat::RuleStats>& stats, const cost::CostModel& model);

  // The graph itself as apply() sees rewritten graphs (after hash-consing equal nodes).
  uint64_t graph_hash() const { return graph_hash_; }
  ExactCost graph_cost() const { return graph_cost_; }
  size_t match_count() const { return matches_.size(); }
  size_t rule_of(size_t match) const { return matches_[match].rule; }

  // Applies match `index` to a fresh copy of the graph's e-graph.
  AppliedMatch apply(size_t index);
  // The graph the last apply() rewrote to; only after it returned Rewritten.
  ir::Graph rewritten_graph() const;

 private:
  struct RuleMatch {
    size_t rule;
    egraph::Match match;
  };

  // Chooses a node per class reachable from the root of work_ and fills in hash, cost and size
  // bottom-up; false on a cycle.
  bool choose(AppliedMatch& result);
  // The node class `id` of work_ takes; sets from_base_[id].
  eqsat::TensorNode chosen_node(eqsat::EClassId id);
  eqsat::TensorNode canonical_base_node(uint32_t base_id) const;
  // Fills hashes_, known_ and the class's price; returns whether it becomes an IR node.
  bool finish_class(uint32_t id, ExactCost& price);

  const std::vector<eqsat::TensorRewrite>& rewrites_;
  const std::vector<eqsat::RuleStats>& stats_;
  const cost::CostModel& model_;
  eqsat::TensorEGraph base_;
  eqsat::GraphRoot root_;
  std::vector<eqsat::TensorNode> base_nodes_;  // by base class id: its one node
  std::vector<ExactCost> base_prices_;         // by base class id: -1 until first priced
  std::vector<RuleMatch> matches_;
  uint64_t graph_hash_ = 0;
  ExactCost graph_cost_ = 0;

  // Per apply(): the rewritten e-graph and the choice read from it.
  eqsat::TensorEGraph work_;
  bool work_dirty_ = false;                // work_ differs from base_
  std::vector<uint32_t> base_of_;          // by work_ class id: a base class merged into it
  std::vector<uint32_t> matched_;          // work_ classes the match rewrote
  std::vector<eqsat::TensorNode> lhs_;     // their original (left-hand side) nodes, canonical
  std::vector<uint8_t> state_;             // DFS: 0 new, 1 open, 2 done
  std::vector<uint64_t> hashes_;           // by work_ class id
  std::vector<uint8_t> known_;             // by work_ class id: computed from weights only
  std::vector<uint8_t> from_base_;         // by work_ class id: chose the graph's own node
  std::vector<eqsat::TensorNode> chosen_;  // by work_ class id
  std::vector<uint32_t> visited_;          // classes reached from the root, in post-order
  std::vector<std::pair<uint32_t, uint32_t>> stack_;  // DFS: class, next child
};

}  // namespace saturate::search
