#include "extract/problem_reduction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <numeric>
#include <tuple>

#include "extract/cycle_check.h"
#include "extract/extraction_index.h"
#include "extract/implication_rows.h"
#include "extract/must_sets.h"
#include "extract/sorted_set.h"

namespace saturate::extract {

namespace {

// Above this many nodes in a class the quadratic dominance test is skipped (it is an
// optimization, never needed for correctness).
constexpr std::size_t kMaxDominanceClassSize = 2000;

class Reducer {
 public:
  Reducer(const ExtractionGraph& graph, const ReductionOptions& options)
      : graph_(graph), options_(options) {}

  ReducedProblem run();

 private:
  bool grow_free_classes();
  void compute_child_classes();
  bool drop_nodes_with_unusable_children();
  bool drop_dominated_nodes();
  bool drop_nodes_that_need_their_own_class();
  void find_needed_classes();
  void find_mandatory_classes();
  bool drop_nodes_above_upper_bound();
  void finish(ReducedProblem& problem);

  bool usable(ClassIndex c) const { return problem_.free_choice[c] != kNoNode || live_[c] > 0; }
  void drop(NodeIndex n, std::size_t& counter) {
    alive_[n] = false;
    --live_[graph_.nodes[n].eclass];
    ++counter;
  }

  const ExtractionGraph& graph_;
  const ReductionOptions& options_;
  ReducedProblem problem_;
  std::vector<bool> alive_;                      // per node: still a possible choice
  std::vector<std::size_t> live_;                // per class: number of alive nodes
  std::vector<std::vector<NodeIndex>> parents_;  // per class: nodes with it as a child
  std::vector<double> min_cost_;                 // per needed class: cheapest alive node
  MustSets global_must_;  // over all needed classes, when not too many; else empty

  bool stopped_by_deadline_ = false;
  std::size_t filtered_ = 0, self_loops_ = 0, need_own_class_ = 0, unusable_children_ = 0,
              dominated_ = 0, above_bound_ = 0;
};

ReducedProblem Reducer::run() {
  const std::size_t nodes = graph_.node_count(), classes = graph_.class_count();
  problem_.free_choice.assign(classes, kNoNode);
  problem_.replacement.resize(nodes);
  std::iota(problem_.replacement.begin(), problem_.replacement.end(), NodeIndex{0});
  alive_.assign(nodes, true);
  live_.assign(classes, 0);
  parents_.assign(classes, {});
  problem_.child_classes.resize(nodes);
  for (NodeIndex n = 0; n < nodes; ++n) {
    const auto& node = graph_.nodes[n];
    ++live_[node.eclass];
    const std::vector<ClassIndex> children = distinct_children(node);
    for (ClassIndex child : children) parents_[child].push_back(n);
    // Filtered nodes are never chosen (TENSAT's filter list: x = 0).
    if (graph_.is_filtered(n)) {
      drop(n, filtered_);
    } else if (std::binary_search(children.begin(), children.end(), node.eclass)) {
      // A node that needs its own class can never be in an acyclic extraction.
      drop(n, self_loops_);
    }
  }

  // Each simplification step checks the deadline (one step on a 34,000-node e-graph takes a
  // second under the sanitizers); the steps correctness needs always run.
  auto simplify = [&] {
    if (!options_.simplify) return false;
    if (options_.deadline.expired()) {
      stopped_by_deadline_ = true;
      return false;
    }
    return true;
  };
  for (int pass = 0; pass < 50 && !stopped_by_deadline_; ++pass) {
    bool changed = false;
    if (simplify()) changed |= grow_free_classes();
    compute_child_classes();
    changed |= drop_nodes_with_unusable_children();
    if (simplify()) changed |= drop_dominated_nodes();
    find_needed_classes();
    if (simplify()) changed |= drop_nodes_that_need_their_own_class();
    find_mandatory_classes();
    if (simplify()) changed |= drop_nodes_above_upper_bound();
    if (!changed) break;
  }
  // The steps above ran in a fixed order; if the pass cap stopped them early, the last drops may
  // have left a node pointing at an emptied class or "needed" out of date. Restore both.
  compute_child_classes();
  drop_nodes_with_unusable_children();
  find_needed_classes();
  find_mandatory_classes();
  ReducedProblem problem = std::move(problem_);
  finish(problem);
  if (options_.simplify && !options_.deadline.expired()) {
    find_implied_classes(graph_, global_must_, problem);
  }
  if (stopped_by_deadline_) problem.statistics.emplace_back("reduction stopped by the deadline", 1);
  if (problem.has_implications) find_node_implications(graph_, global_must_, problem);
  return problem;
}

// A class is free when it has an alive node of cost 0 whose child classes are all free. Built
// from the leaves up, free classes form a DAG that no other class's node can be reached from,
// so always taking the free node costs nothing and closes no cycle.
bool Reducer::grow_free_classes() {
  bool grew = false;
  std::deque<ClassIndex> newly_free;
  auto try_node = [&](NodeIndex n) {
    const auto& node = graph_.nodes[n];
    if (!alive_[n] || node.cost != 0 || problem_.free_choice[node.eclass] != kNoNode) return;
    for (ClassIndex child : node.children) {
      if (problem_.free_choice[child] == kNoNode) return;
    }
    problem_.free_choice[node.eclass] = n;
    newly_free.push_back(node.eclass);
    grew = true;
  };
  for (NodeIndex n = 0; n < graph_.node_count(); ++n) try_node(n);
  while (!newly_free.empty()) {
    const ClassIndex c = newly_free.front();
    newly_free.pop_front();
    for (NodeIndex parent : parents_[c]) try_node(parent);
  }
  return grew;
}

void Reducer::compute_child_classes() {
  for (NodeIndex n = 0; n < graph_.node_count(); ++n) {
    auto& children = problem_.child_classes[n];
    children.clear();
    if (!alive_[n]) continue;
    for (ClassIndex child : distinct_children(graph_.nodes[n])) {
      if (problem_.free_choice[child] == kNoNode) children.push_back(child);
    }
  }
}

// A node with a child class that has no alive node (and is not free) can never be chosen.
bool Reducer::drop_nodes_with_unusable_children() {
  const std::size_t before = unusable_children_;
  std::deque<ClassIndex> emptied;
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (!usable(c)) emptied.push_back(c);
  }
  while (!emptied.empty()) {
    const ClassIndex c = emptied.front();
    emptied.pop_front();
    for (NodeIndex parent : parents_[c]) {
      if (!alive_[parent]) continue;
      const ClassIndex parent_class = graph_.nodes[parent].eclass;
      drop(parent, unusable_children_);
      if (!usable(parent_class)) emptied.push_back(parent_class);
    }
  }
  return unusable_children_ != before;
}

// Node b is dominated by node a of the same class when cost(a) <= cost(b) and a's child classes
// are a subset of b's. Replacing b by a in an acyclic extraction keeps it valid (a's children
// are already chosen, and its edges are a subset of b's, so no cycle appears) and costs no more.
bool Reducer::drop_dominated_nodes() {
  const std::size_t before = dominated_;
  std::vector<NodeIndex> members;
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (problem_.free_choice[c] != kNoNode || live_[c] < 2 || live_[c] > kMaxDominanceClassSize) {
      continue;
    }
    members.clear();
    for (NodeIndex n : graph_.class_nodes[c]) {
      if (alive_[n]) members.push_back(n);
    }
    const auto& children = problem_.child_classes;
    // A dominator sorts before what it dominates: fewer children, then lower cost, then index.
    std::sort(members.begin(), members.end(), [&](NodeIndex a, NodeIndex b) {
      const auto key_a = std::tuple(children[a].size(), graph_.nodes[a].cost, a);
      const auto key_b = std::tuple(children[b].size(), graph_.nodes[b].cost, b);
      return key_a < key_b;
    });
    for (std::size_t i = 0; i < members.size(); ++i) {
      const NodeIndex a = members[i];
      if (!alive_[a]) continue;
      for (std::size_t j = i + 1; j < members.size(); ++j) {
        const NodeIndex b = members[j];
        if (!alive_[b] || graph_.nodes[a].cost > graph_.nodes[b].cost) continue;
        if (!std::includes(children[b].begin(), children[b].end(), children[a].begin(),
                           children[a].end())) {
          continue;
        }
        drop(b, dominated_);
        problem_.replacement[b] = a;
      }
    }
  }
  return dominated_ != before;
}

// Generalizes self loops: a node of class c with a child class e whose must-set holds c would
// make c its own descendant, so it can never be chosen. Only classes of one strongly connected
// component can be in each other's must-sets, so when the whole graph is too big for must-sets
// they are computed per component.
bool Reducer::drop_nodes_that_need_their_own_class() {
  const std::size_t before = need_own_class_;
  auto drop_cyclic_nodes = [&](const MustSets& sets) {
    for (ClassIndex c : sets.group) {
      for (NodeIndex n : graph_.class_nodes[c]) {
        if (!alive_[n]) continue;
        for (ClassIndex e : problem_.child_classes[n]) {
          if (sets.contains(e, c)) {
            drop(n, need_own_class_);
            break;
          }
        }
      }
    }
  };
  global_must_ = compute_global_must_sets(graph_, alive_, problem_.child_classes, problem_.needed);
  if (!global_must_.empty()) {
    drop_cyclic_nodes(global_must_);
    return need_own_class_ != before;
  }
  std::vector<std::vector<ClassIndex>> successors(graph_.class_count());
  for (NodeIndex n = 0; n < graph_.node_count(); ++n) {
    if (!alive_[n] || !problem_.needed[graph_.nodes[n].eclass]) continue;
    auto& list = successors[graph_.nodes[n].eclass];
    list.insert(list.end(), problem_.child_classes[n].begin(), problem_.child_classes[n].end());
  }
  const std::vector<std::size_t> component = strongly_connected_components(successors);
  const std::vector<std::size_t> sizes = component_sizes(component);
  std::vector<std::vector<ClassIndex>> members(sizes.size());
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    const std::size_t size = sizes[component[c]];
    if (problem_.needed[c] && size > 1 && size <= kMaxMustSetClasses) {
      members[component[c]].push_back(c);
    }
  }
  for (auto& group : members) {
    if (!group.empty()) {
      drop_cyclic_nodes(
          compute_must_sets(graph_, alive_, problem_.child_classes, std::move(group)));
    }
  }
  return need_own_class_ != before;
}

void Reducer::find_needed_classes() {
  problem_.needed.assign(graph_.class_count(), false);
  std::deque<ClassIndex> queue;
  auto visit = [&](ClassIndex c) {
    if (problem_.needed[c] || problem_.free_choice[c] != kNoNode) return;
    problem_.needed[c] = true;
    queue.push_back(c);
  };
  for (ClassIndex root : graph_.roots) visit(root);
  while (!queue.empty()) {
    const ClassIndex c = queue.front();
    queue.pop_front();
    for (NodeIndex n : graph_.class_nodes[c]) {
      if (!alive_[n]) continue;
      for (ClassIndex child : problem_.child_classes[n]) visit(child);
    }
  }
}

// Roots are mandatory; so is every child class shared by all alive nodes of a mandatory class.
void Reducer::find_mandatory_classes() {
  problem_.mandatory.assign(graph_.class_count(), false);
  min_cost_.assign(graph_.class_count(), 0);
  std::deque<ClassIndex> queue;
  auto visit = [&](ClassIndex c) {
    if (problem_.mandatory[c] || !problem_.needed[c]) return;
    problem_.mandatory[c] = true;
    queue.push_back(c);
  };
  for (ClassIndex root : graph_.roots) {
    visit(root);
    if (global_must_.empty() || global_must_.position[root] == MustSets::kOutside) continue;
    for_each_member(global_must_, root, visit);
  }
  std::vector<ClassIndex> shared, scratch;
  while (!queue.empty()) {
    const ClassIndex c = queue.front();
    queue.pop_front();
    bool first = true;
    for (NodeIndex n : graph_.class_nodes[c]) {
      if (!alive_[n]) continue;
      const auto& children = problem_.child_classes[n];
      if (first) {
        shared = children;
        first = false;
      } else {
        intersect_with(shared, children, scratch);
      }
    }
    if (first) continue;  // no alive node: the root is infeasible, reported in finish()
    for (ClassIndex child : shared) visit(child);
  }
  problem_.lower_bound = 0;
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (!problem_.needed[c]) continue;
    double cheapest = 0;
    bool any = false;
    for (NodeIndex n : graph_.class_nodes[c]) {
      if (!alive_[n]) continue;
      cheapest = any ? std::min(cheapest, graph_.nodes[n].cost) : graph_.nodes[n].cost;
      any = true;
    }
    min_cost_[c] = cheapest;
    if (problem_.mandatory[c]) problem_.lower_bound += cheapest;
  }
}

// Any extraction using node n of class c pays for n and for one node in each class of
// (mandatory classes + the must-sets of n's child classes) - {c}, all distinct classes, so the
// sum of their cheapest costs is a lower bound on it. Above the cost of a known extraction, n
// cannot be part of a cheaper one. Without must-sets, n's child classes stand in for them.
bool Reducer::drop_nodes_above_upper_bound() {
  if (!std::isfinite(options_.upper_bound)) return false;
  const double limit = options_.upper_bound * (1 + 1e-9) + 1e-12;
  const std::size_t before = above_bound_;
  const MustSets& must = global_must_;
  std::vector<std::uint64_t> mandatory(must.words, 0), join(must.words);
  for (ClassIndex c : must.group) {
    if (problem_.mandatory[c]) {
      mandatory[must.position[c] / 64] |= std::uint64_t{1} << (must.position[c] % 64);
    }
  }
  for (NodeIndex n = 0; n < graph_.node_count(); ++n) {
    const ClassIndex c = graph_.nodes[n].eclass;
    if (!alive_[n] || !problem_.needed[c]) continue;
    double bound = graph_.nodes[n].cost;
    const auto& children = problem_.child_classes[n];
    const bool use_must = !must.empty() && must.position[c] != MustSets::kOutside &&
                          std::all_of(children.begin(), children.end(), [&](ClassIndex e) {
                            return must.position[e] != MustSets::kOutside;
                          });
    if (use_must) {
      join = mandatory;
      for (ClassIndex e : children) {
        const std::uint64_t* other = must.row(e);
        for (std::size_t w = 0; w < must.words; ++w) join[w] |= other[w];
      }
      join[must.position[c] / 64] &= ~(std::uint64_t{1} << (must.position[c] % 64));
      for (std::size_t w = 0; w < must.words; ++w) {
        for (std::uint64_t word = join[w]; word != 0; word &= word - 1) {
          bound += min_cost_[must.group[w * 64 + static_cast<std::size_t>(__builtin_ctzll(word))]];
        }
      }
    } else {
      bound += problem_.lower_bound;
      if (problem_.mandatory[c]) bound -= min_cost_[c];
      for (ClassIndex child : children) {
        if (!problem_.mandatory[child]) bound += min_cost_[child];
      }
    }
    if (bound > limit) drop(n, above_bound_);
  }
  return above_bound_ != before;
}

void Reducer::finish(ReducedProblem& problem) {
  const std::size_t classes = graph_.class_count();
  problem.candidates.assign(classes, {});
  std::size_t candidates = 0, unreachable = 0, needed = 0, single = 0, mandatory = 0, free = 0;
  for (ClassIndex c = 0; c < classes; ++c) {
    if (problem.free_choice[c] != kNoNode) ++free;
    for (NodeIndex n : graph_.class_nodes[c]) {
      if (!alive_[n]) continue;
      if (problem.needed[c]) {
        problem.candidates[c].push_back(n);
      } else {
        ++unreachable;
      }
    }
    if (!problem.needed[c]) continue;
    ++needed;
    candidates += problem.candidates[c].size();
    if (problem.candidates[c].size() == 1) ++single;
    if (problem.mandatory[c]) ++mandatory;
  }
  for (NodeIndex n = 0; n < graph_.node_count(); ++n) {
    if (!alive_[n] || !problem.needed[graph_.nodes[n].eclass]) problem.child_classes[n].clear();
  }
  for (ClassIndex root : graph_.roots) {
    if (problem.free_choice[root] != kNoNode) continue;
    if (problem.candidates[root].empty() && !problem.infeasible) {
      problem.infeasible = true;
      problem.infeasible_reason = "root class '" + graph_.class_ids[root] +
                                  "' has no node that can be part of an acyclic extraction";
    }
    if (std::find(problem.roots.begin(), problem.roots.end(), root) == problem.roots.end()) {
      problem.roots.push_back(root);
    }
  }

  std::vector<std::vector<ClassIndex>> successors(classes), zero_cost_successors(classes);
  for (ClassIndex c = 0; c < classes; ++c) {
    for (NodeIndex n : problem.candidates[c]) {
      for (ClassIndex child : problem.child_classes[n]) {
        successors[c].push_back(child);
        if (graph_.nodes[n].cost == 0) zero_cost_successors[c].push_back(child);
      }
    }
  }
  problem.component = strongly_connected_components(successors);
  problem.component_size = component_sizes(problem.component);
  std::size_t cyclic = 0;
  for (ClassIndex c = 0; c < classes; ++c) cyclic += problem.needed[c] && problem.on_cycle(c);
  // Zero-cost cycles matter because cycle constraints are what keeps the solver from choosing
  // them: with positive costs a cycle at least costs something.
  const auto zero_component = strongly_connected_components(zero_cost_successors);
  const auto zero_sizes = component_sizes(zero_component);
  std::size_t zero_cost_cyclic = 0;
  for (ClassIndex c = 0; c < classes; ++c) zero_cost_cyclic += zero_sizes[zero_component[c]] > 1;

  auto stat = [&](const char* name, double value) { problem.statistics.emplace_back(name, value); };
  stat("graph nodes", static_cast<double>(graph_.node_count()));
  stat("graph classes", static_cast<double>(classes));
  stat("filtered nodes", static_cast<double>(filtered_));
  stat("self-loop nodes", static_cast<double>(self_loops_));
  stat("nodes that need their own class", static_cast<double>(need_own_class_));
  stat("nodes with an unusable child", static_cast<double>(unusable_children_));
  stat("dominated nodes", static_cast<double>(dominated_));
  stat("nodes above the upper bound", static_cast<double>(above_bound_));
  stat("unreachable nodes", static_cast<double>(unreachable));
  stat("free classes", static_cast<double>(free));
  stat("candidate nodes", static_cast<double>(candidates));
  stat("needed classes", static_cast<double>(needed));
  stat("single-candidate classes", static_cast<double>(single));
  stat("mandatory classes", static_cast<double>(mandatory));
  stat("classes on cycles", static_cast<double>(cyclic));
  stat("classes on zero-cost cycles", static_cast<double>(zero_cost_cyclic));
}

}  // namespace

NodeIndex ReducedProblem::representative(NodeIndex node, const ExtractionGraph& graph) const {
  const ClassIndex c = graph.nodes[node].eclass;
  if (free_choice[c] != kNoNode) return free_choice[c];
  if (!needed[c]) return kNoNode;
  while (replacement[node] != node) node = replacement[node];
  const auto& options = candidates[c];
  return std::find(options.begin(), options.end(), node) != options.end() ? node : kNoNode;
}

ReducedProblem reduce_problem(const ExtractionGraph& graph, const ReductionOptions& options) {
  return Reducer(graph, options).run();
}

}  // namespace saturate::extract
