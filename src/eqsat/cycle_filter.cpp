#include "eqsat/cycle_filter.h"

#include <chrono>
#include <limits>

namespace saturate::eqsat {
namespace {

constexpr uint32_t kUnordered = std::numeric_limits<uint32_t>::max();

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A class on the depth-first stack, with the edge (visible node, child) to take next.
struct Frame {
  EClassId id;
  size_t node = 0;
  size_t child = 0;
};

// Iterative depth-first search over every class, through the children of visible nodes.
// `on_back_edge(stack, child)` sees each edge to a class still on the stack (a cycle) and may
// stop the search by returning false; `on_finish(id)` sees each class once all it reaches is
// done (post-order). Returns whether the search ran to the end.
template <typename OnBackEdge, typename OnFinish>
bool depth_first(const TensorEGraph& egraph, OnBackEdge on_back_edge, OnFinish on_finish) {
  std::vector<uint8_t> state(egraph.id_bound(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<Frame> stack;
  for (const auto& eclass : egraph.classes()) {
    if (state[eclass.id.index()] != 0) continue;
    stack.push_back({eclass.id});
    state[eclass.id.index()] = 1;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const auto& nodes = egraph.eclass(frame.id).nodes;
      if (frame.node >= nodes.size()) {
        state[frame.id.index()] = 2;
        on_finish(frame.id);
        stack.pop_back();
        continue;
      }
      const TensorNode& node = nodes[frame.node];
      if (!egraph.is_visible(frame.id, node) || frame.child >= node.children.size()) {
        ++frame.node;
        frame.child = 0;
        continue;
      }
      EClassId child = egraph.find(node.children[frame.child++]);
      if (state[child.index()] == 0) {
        state[child.index()] = 1;
        stack.push_back({child});
      } else if (state[child.index()] == 1 && !on_back_edge(stack, child)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::string_view to_string(CycleFilterMode mode) {
  return mode == CycleFilterMode::Vanilla ? "vanilla" : "efficient";
}

void CycleFilter::attach(TensorEGraph& egraph) {
  egraph.set_node_filter([this](EClassId, const TensorNode& node) { return !is_filtered(node); });
}

void CycleFilter::recanonicalize(const TensorEGraph& egraph) {
  decltype(filtered_) canonical;
  for (TensorNode node : filtered_) {
    for (EClassId& child : node.children) child = egraph.find(child);
    canonical.insert(std::move(node));
  }
  filtered_ = std::move(canonical);
}

void CycleFilter::begin_iteration(const TensorEGraph& egraph) {
  auto start = std::chrono::steady_clock::now();
  existing_at_start_.clear();
  for (const auto& eclass : egraph.classes()) {
    for (const TensorNode& node : eclass.nodes) existing_at_start_.insert(node);
  }
  if (mode_ == CycleFilterMode::Efficient) {
    // Post-order numbering: every class gets a number above all its descendants'.
    order_.assign(egraph.id_bound(), kUnordered);
    uint32_t next = 0;
    depth_first(
        egraph, [](const std::vector<Frame>&, EClassId) { return true; },
        [&](EClassId id) { order_[id.index()] = next++; });
  }
  check_seconds_ += seconds_since(start);
}

bool CycleFilter::reaches(const TensorEGraph& egraph, EClassId from, EClassId target) {
  auto start = std::chrono::steady_clock::now();
  from = egraph.find(from);
  target = egraph.find(target);
  if (visit_stamp_.size() < egraph.id_bound()) visit_stamp_.resize(egraph.id_bound(), 0);
  ++stamp_;
  auto order_of = [this](EClassId id) {
    return id.index() < order_.size() ? order_[id.index()] : kUnordered;
  };
  bool pruning = mode_ == CycleFilterMode::Efficient && order_of(target) != kUnordered;
  uint32_t target_order = order_of(target);
  std::vector<EClassId> stack = {from};
  bool found = false;
  while (!stack.empty() && !found) {
    EClassId id = stack.back();
    stack.pop_back();
    if (id == target) {
      found = true;
      break;
    }
    if (visit_stamp_[id.index()] == stamp_) continue;
    visit_stamp_[id.index()] = stamp_;
    // Classes numbered below the target cannot reach it (as of the iteration's start).
    if (pruning && order_of(id) != kUnordered && order_of(id) < target_order) continue;
    for (const TensorNode& node : egraph.eclass(id).nodes) {
      if (!egraph.is_visible(id, node)) continue;
      for (EClassId child : node.children) stack.push_back(egraph.find(child));
    }
  }
  check_seconds_ += seconds_since(start);
  return found;
}

size_t CycleFilter::remove_cycles(TensorEGraph& egraph) {
  auto start = std::chrono::steady_clock::now();
  recanonicalize(egraph);
  size_t removed = 0;
  // A back edge closes a cycle: the frames from the child to the top, each through its current
  // node. One node of it goes on the filter list and the search starts over, until none is left.
  auto cut_cycle = [&](const std::vector<Frame>& stack, EClassId child) {
    size_t first = stack.size();
    while (first > 0 && stack[first - 1].id != child) --first;
    const TensorNode* victim = nullptr;
    for (size_t k = first - 1; k < stack.size(); ++k) {
      const TensorNode& candidate = egraph.eclass(stack[k].id).nodes[stack[k].node];
      if (victim == nullptr || !existing_at_start_.contains(candidate)) victim = &candidate;
    }
    filtered_.insert(*victim);
    ++removed;
    return false;
  };
  while (!depth_first(egraph, cut_cycle, [](EClassId) {})) {
  }
  postpass_seconds_ += seconds_since(start);
  return removed;
}

}  // namespace saturate::eqsat
