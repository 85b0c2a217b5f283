#include "search/match_applier.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "egraph/search_cache.h"
#include "search/node_price.h"
#include "support/error.h"
#include "support/hash.h"

namespace saturate::search {
namespace {

using eqsat::EClassId;
using eqsat::TensorNode;

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

}  // namespace

MatchApplier::MatchApplier(const ir::Graph& graph,
                           const std::vector<eqsat::TensorRewrite>& rewrites,
                           const std::vector<eqsat::RuleStats>& stats, const cost::CostModel& model)
    : rewrites_(rewrites), stats_(stats), model_(model) {
  root_ = eqsat::add_graph(base_, graph);
  // A graph's e-graph has one node per class (equal nodes share one by hash-consing); that node
  // is what every class keeps when a match is applied elsewhere.
  base_nodes_.resize(base_.id_bound());
  base_prices_.assign(base_.id_bound(), -1);
  for (const auto& eclass : base_.classes()) {
    if (eclass.nodes.size() != 1) {
      throw Error("internal: class e" + std::to_string(eclass.id.value()) + " of graph '" +
                  graph.name() + "' holds " + std::to_string(eclass.nodes.size()) + " nodes");
    }
    base_nodes_[eclass.id.index()] = eclass.nodes.front();
  }
  egraph::PatternSearchCache<eqsat::TensorEGraph> cache(base_);
  for (size_t rule = 0; rule < rewrites_.size(); ++rule) {
    for (egraph::Match& match : rewrites_[rule].search(cache, egraph::kNoLimit)) {
      if (egraph::roots_distinct(match)) matches_.push_back(RuleMatch{rule, std::move(match)});
    }
  }
  work_ = base_;
  base_of_.resize(work_.id_bound());
  for (uint32_t b = 0; b < base_nodes_.size(); ++b) base_of_[b] = b;
  AppliedMatch itself;
  if (!choose(itself)) {
    throw Error("internal: graph '" + graph.name() + "' is cyclic in its e-graph");
  }
  graph_hash_ = itself.hash;
  graph_cost_ = itself.cost;
}

AppliedMatch MatchApplier::apply(size_t index) {
  const RuleMatch& entry = matches_.at(index);
  AppliedMatch result;
  result.rule = entry.rule;
  // Appliers plan before they add anything, so a declined match leaves work_ as it was and the
  // next match can reuse it without a fresh copy.
  if (work_dirty_) {
    work_ = base_;
    work_dirty_ = false;
  }
  const eqsat::RuleStats before = stats_[entry.rule];
  const size_t changed = rewrites_[entry.rule].apply(work_, entry.match);
  work_dirty_ = changed > 0 || work_.id_bound() != base_.id_bound() || !work_.is_clean();
  if (changed == 0) {
    const eqsat::RuleStats& after = stats_[entry.rule];
    if (after.shape_rejected > before.shape_rejected) {
      result.outcome = MatchOutcome::ShapeRejected;
    } else if (after.condition_rejected > before.condition_rejected) {
      result.outcome = MatchOutcome::ConditionRejected;
    } else if (after.split_rejected > before.split_rejected) {
      result.outcome = MatchOutcome::SplitRejected;
    } else {
      result.outcome = MatchOutcome::Unchanged;
    }
    return result;
  }
  work_.rebuild();

  base_of_.assign(work_.id_bound(), kNone);
  for (uint32_t b = 0; b < base_nodes_.size(); ++b) {
    uint32_t c = work_.find(EClassId(b)).value();
    if (base_of_[c] == kNone) base_of_[c] = b;
  }
  matched_.clear();
  lhs_.clear();
  for (EClassId root : entry.match.roots) {
    matched_.push_back(work_.find(root).value());
    lhs_.push_back(canonical_base_node(root.value()));
  }
  result.outcome = choose(result) ? MatchOutcome::Rewritten : MatchOutcome::Cyclic;
  return result;
}

ir::Graph MatchApplier::rewritten_graph() const {
  eqsat::Choice choice;
  choice.reserve(visited_.size());
  for (uint32_t c : visited_) choice.emplace(c, chosen_[c]);
  eqsat::GraphRoot root = root_;
  root.root = work_.find(root_.root);
  return eqsat::extract_graph(work_, root, choice);
}

TensorNode MatchApplier::canonical_base_node(uint32_t base_id) const {
  TensorNode node = base_nodes_[base_id];
  for (EClassId& child : node.children) child = work_.find(child);
  return node;
}

TensorNode MatchApplier::chosen_node(EClassId id) {
  from_base_[id.index()] = 0;
  for (size_t k = 0; k < matched_.size(); ++k) {
    if (matched_[k] != id.value()) continue;
    // The rewritten class: whatever the right-hand side put next to the matched node.
    for (const TensorNode& node : work_.eclass(id).nodes) {
      if (!(node == lhs_[k])) return node;
    }
    return lhs_[k];
  }
  if (base_of_[id.index()] != kNone) {
    from_base_[id.index()] = 1;
    return canonical_base_node(base_of_[id.index()]);
  }
  return work_.eclass(id).nodes.front();  // added by the right-hand side: its only node
}

bool MatchApplier::finish_class(uint32_t id, ExactCost& price) {
  const TensorNode& node = chosen_[id];
  // Leaves and attributes hash by their interned labels, so the hash does not depend on class
  // ids or generated node names: equal graphs from different e-graphs hash alike.
  uint64_t h = mix64(static_cast<uint64_t>(node.op.hash()) ^ (node.children.size() << 56));
  for (EClassId child : node.children) h = mix64(h * 31 + hashes_[work_.find(child).index()]);
  hashes_[id] = h;

  // Compile-time folding and pricing as cost::graph_cost does on the extracted graph.
  price = 0;
  known_[id] = 0;
  if (node.op.kind == eqsat::TensorOp::Kind::Attribute) return false;
  if (node.op.kind == eqsat::TensorOp::Kind::Leaf) {
    ir::OpKind leaf = node.op.leaf_tensor().op;
    known_[id] = leaf == ir::OpKind::Weight || leaf == ir::OpKind::Constant;
    return true;
  }
  const eqsat::LanguageOp& op = node.op.op();
  if (eqsat::is_projection(op)) {
    known_[id] = known_[work_.find(node.children.back()).index()];
    return false;  // an output of the split, not a node
  }
  bool any_input = false;
  bool all_known = true;
  for (EClassId child : node.children) {
    if (work_.data(child).kind == eqsat::TensorData::Kind::Attribute) continue;
    any_input = true;
    all_known = all_known && known_[work_.find(child).index()] != 0;
  }
  known_[id] = any_input && all_known && op.ir_op != ir::OpKind::Opaque;
  if (op.ir_op == ir::OpKind::Noop) return false;  // joins outputs; dropped on extraction
  if (known_[id]) return true;
  const bool base = from_base_[id] != 0;
  if (base && base_prices_[base_of_[id]] >= 0) {
    price = base_prices_[base_of_[id]];
  } else {
    price = exact_cost(node_price(work_, node, model_));
    if (base) base_prices_[base_of_[id]] = price;
  }
  return true;
}

bool MatchApplier::choose(AppliedMatch& result) {
  const size_t bound = work_.id_bound();
  state_.assign(bound, 0);
  if (hashes_.size() < bound) {
    hashes_.resize(bound);
    known_.resize(bound);
    from_base_.resize(bound);
    chosen_.resize(bound);
  }
  visited_.clear();
  stack_.clear();
  result.cost = 0;
  result.nodes = 0;

  // Iterative post-order DFS from the root: graphs can be deep.
  const uint32_t root = work_.find(root_.root).value();
  state_[root] = 1;
  chosen_[root] = chosen_node(EClassId(root));
  stack_.emplace_back(root, 0);
  while (!stack_.empty()) {
    const uint32_t c = stack_.back().first;
    const uint32_t next = stack_.back().second;
    const TensorNode& node = chosen_[c];
    if (next < node.children.size()) {
      ++stack_.back().second;
      const uint32_t child = work_.find(node.children[next]).value();
      if (state_[child] == 1) return false;
      if (state_[child] == 0) {
        state_[child] = 1;
        chosen_[child] = chosen_node(EClassId(child));
        stack_.emplace_back(child, 0);
      }
      continue;
    }
    ExactCost price = 0;
    if (finish_class(c, price)) ++result.nodes;
    result.cost += price;
    state_[c] = 2;
    visited_.push_back(c);
    stack_.pop_back();
  }
  result.hash = hashes_[root];
  return true;
}

}  // namespace saturate::search
