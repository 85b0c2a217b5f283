#pragma once

#include <cstddef>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "eqsat/tensor_egraph.h"

namespace saturate::eqsat {

enum class CycleFilterMode {
  // Check each match against the whole current e-graph (O(matches x N)).
  Vanilla,
  // TENSAT's Algorithm 2: a per-iteration pre-filter, then a DFS post-pass that puts one node of
  // each remaining cycle on a filter list. The pre-filter here keeps a topological order of the
  // classes instead of a descendants map: x can only reach y if order(x) > order(y), so a search
  // from x prunes every class ordered below y. Memory is O(N), not O(N^2).
  Efficient,
};

std::string_view to_string(CycleFilterMode mode);

// Keeps the e-graph free of cycles so that extraction always finds a valid graph: rewrites that
// would close a cycle are skipped before they are applied, and cycles that appear anyway (from
// several rewrites in one iteration, or from congruence) are cut after each iteration by hiding
// one node of the cycle from matching and extraction (the filter list).
class CycleFilter {
 public:
  explicit CycleFilter(CycleFilterMode mode) : mode_(mode) {}

  CycleFilterMode mode() const { return mode_; }

  // Installs the filter list as the e-graph's node filter.
  void attach(TensorEGraph& egraph);

  // Called before each iteration on the clean e-graph.
  void begin_iteration(const TensorEGraph& egraph);

  // Whether `target` can be reached from `from` by following children of visible nodes, i.e.
  // whether making `from` a descendant of `target` would close a cycle.
  bool reaches(const TensorEGraph& egraph, EClassId from, EClassId target);

  // After rebuild: finds every remaining cycle and filters one node of each, preferring nodes
  // added during the iteration. Returns how many nodes it filtered.
  size_t remove_cycles(TensorEGraph& egraph);

  bool is_filtered(const TensorNode& node) const { return filtered_.contains(node); }
  size_t filtered_count() const { return filtered_.size(); }
  size_t prefilter_rejections() const { return rejections_; }
  void count_rejection() { ++rejections_; }
  double check_seconds() const { return check_seconds_; }
  double postpass_seconds() const { return postpass_seconds_; }

 private:
  void recanonicalize(const TensorEGraph& egraph);

  CycleFilterMode mode_;
  std::unordered_set<TensorNode, egraph::ENodeHash<TensorOp>> filtered_;
  std::unordered_set<TensorNode, egraph::ENodeHash<TensorOp>> existing_at_start_;
  std::vector<uint32_t> order_;  // by class id; kUnordered for classes created since
  std::vector<uint32_t> visit_stamp_;
  uint32_t stamp_ = 0;
  size_t rejections_ = 0;
  double check_seconds_ = 0;
  double postpass_seconds_ = 0;
};

}  // namespace saturate::eqsat
