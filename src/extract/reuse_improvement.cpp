#include "extract/reuse_improvement.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "extract/extraction_index.h"

namespace saturate::extract {

namespace {

constexpr std::size_t kNotExtracted = std::numeric_limits<std::size_t>::max();

// The current choice seen from its roots: a topological rank of each extracted class (children
// before parents), how many extracted classes or roots read it, and the DAG cost.
struct ChoiceView {
  std::vector<std::size_t> rank;  // kNotExtracted for a class the roots do not reach
  std::vector<std::size_t> readers;
  std::vector<ClassIndex> post_order;
  double dag_cost = 0;
};

// False when the choice is incomplete or cyclic (the improvement then does nothing).
bool view_choice(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice,
                 const std::vector<std::vector<ClassIndex>>& children, ChoiceView& view) {
  const std::size_t classes = graph.class_count();
  view.rank.assign(classes, kNotExtracted);
  view.readers.assign(classes, 0);
  view.post_order.clear();
  view.dag_cost = 0;
  enum : char { kNew, kOpen, kDone };
  std::vector<char> state(classes, kNew);
  std::vector<std::pair<ClassIndex, std::size_t>> stack;
  for (ClassIndex root : graph.roots) {
    if (state[root] != kNew) continue;
    stack.emplace_back(root, 0);
    state[root] = kOpen;
    while (!stack.empty()) {
      auto& [eclass, next] = stack.back();
      const NodeIndex node = choice[eclass];
      if (node == kNoNode) return false;
      if (next < children[node].size()) {
        const ClassIndex child = children[node][next++];
        if (state[child] == kOpen) return false;
        if (state[child] == kNew) {
          state[child] = kOpen;
          stack.emplace_back(child, 0);
        }
        continue;
      }
      state[eclass] = kDone;
      view.rank[eclass] = view.post_order.size();
      view.post_order.push_back(eclass);
      view.dag_cost += graph.nodes[node].cost;
      stack.pop_back();
    }
  }
  for (ClassIndex root : graph.roots) ++view.readers[root];
  for (ClassIndex eclass : view.post_order) {
    for (ClassIndex child : children[choice[eclass]]) ++view.readers[child];
  }
  return true;
}

// Chooses `candidate` for `eclass` in the reader counts only: the candidate's children gain a
// reader, the current node's lose one, and a class left without readers releases its own
// children in turn (collected in `released`). Returns the DAG cost saved: the current node's
// cost and every released class's, less the candidate's.
double switch_readers(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice,
                      const std::vector<std::vector<ClassIndex>>& children, ClassIndex eclass,
                      NodeIndex candidate, std::vector<std::size_t>& readers,
                      std::vector<ClassIndex>& released) {
  const NodeIndex current = choice[eclass];
  double saving = graph.nodes[current].cost - graph.nodes[candidate].cost;
  // First, so that none of the candidate's children is released below.
  for (ClassIndex child : children[candidate]) ++readers[child];
  released.clear();
  std::vector<ClassIndex> pending(children[current].begin(), children[current].end());
  while (!pending.empty()) {
    const ClassIndex child = pending.back();
    pending.pop_back();
    if (--readers[child] != 0) continue;
    released.push_back(child);
    const NodeIndex node = choice[child];
    saving += graph.nodes[node].cost;
    pending.insert(pending.end(), children[node].begin(), children[node].end());
  }
  return saving;
}

// Undoes switch_readers: every released class lost all its readers, its children one each.
void restore_readers(const std::vector<NodeIndex>& choice,
                     const std::vector<std::vector<ClassIndex>>& children, ClassIndex eclass,
                     NodeIndex candidate, const std::vector<ClassIndex>& released,
                     std::vector<std::size_t>& readers) {
  for (ClassIndex child : children[candidate]) --readers[child];
  for (ClassIndex child : children[choice[eclass]]) ++readers[child];
  for (ClassIndex gone : released) {
    for (ClassIndex child : children[choice[gone]]) ++readers[child];
  }
}

// Whether `target` can be reached from `from` through chosen nodes. Edges of the choice go to
// lower ranks, so a path to the target only visits classes ranked above it.
bool reaches(const std::vector<NodeIndex>& choice,
             const std::vector<std::vector<ClassIndex>>& children, const ChoiceView& view,
             ClassIndex from, ClassIndex target, std::vector<std::size_t>& visited,
             std::size_t stamp) {
  std::vector<ClassIndex> pending{from};
  while (!pending.empty()) {
    const ClassIndex eclass = pending.back();
    pending.pop_back();
    if (eclass == target) return true;
    if (visited[eclass] == stamp || view.rank[eclass] < view.rank[target]) continue;
    visited[eclass] = stamp;
    for (ClassIndex child : children[choice[eclass]]) pending.push_back(child);
  }
  return false;
}

}  // namespace

std::size_t improve_by_reuse(const ExtractionGraph& graph, std::vector<NodeIndex>& choice,
                             const Deadline& deadline, std::size_t max_switches) {
  choice.resize(graph.class_count(), kNoNode);
  std::vector<std::vector<ClassIndex>> children(graph.node_count());
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    children[n] = distinct_children(graph.nodes[n]);
  }
  ChoiceView view;
  std::vector<ClassIndex> released;
  std::vector<std::size_t> visited(graph.class_count(), 0);
  std::size_t stamp = 0;
  std::size_t switches = 0;
  std::size_t evaluations = 0;
  struct Move {
    double saving;
    ClassIndex eclass;
    NodeIndex node;
  };
  std::vector<Move> moves;
  while (switches < max_switches) {
    if (!view_choice(graph, choice, children, view)) return switches;
    // Savings below this are float rounding of the costs, not improvements.
    const double tolerance = 1e-9 * std::max(1.0, std::abs(view.dag_cost));
    // Each pass prices every switch against the choice it starts from, then makes them best
    // first, each priced again against the switches made before it: the first improving switch
    // found can give up a kernel that a better switch would have shared.
    moves.clear();
    for (ClassIndex eclass : view.post_order) {
      for (NodeIndex candidate : graph.class_nodes[eclass]) {
        if (candidate == choice[eclass] || graph.is_filtered(candidate)) continue;
        const bool extracted = std::ranges::all_of(
            children[candidate], [&](ClassIndex c) { return view.rank[c] != kNotExtracted; });
        if (!extracted) continue;
        if ((++evaluations & 1023) == 0 && deadline.expired()) return switches;
        const double saving =
            switch_readers(graph, choice, children, eclass, candidate, view.readers, released);
        restore_readers(choice, children, eclass, candidate, released, view.readers);
        if (saving > tolerance) moves.push_back({saving, eclass, candidate});
      }
    }
    std::ranges::stable_sort(moves,
                             [](const Move& a, const Move& b) { return a.saving > b.saving; });
    bool switched = false;
    for (const Move& move : moves) {
      if (view.rank[move.eclass] == kNotExtracted) continue;  // released by an earlier switch
      bool extracted = true, below = true;
      for (ClassIndex child : children[move.node]) {
        extracted = extracted && view.rank[child] != kNotExtracted;
        below = below && view.rank[child] < view.rank[move.eclass];
      }
      if (!extracted) continue;
      if ((++evaluations & 1023) == 0 && deadline.expired()) return switches;
      const double saving =
          switch_readers(graph, choice, children, move.eclass, move.node, view.readers, released);
      bool take = saving > tolerance;
      if (take && !below) {
        // A child ranked above the class is fine unless it needs the class: a cycle.
        ++stamp;
        for (ClassIndex child : children[move.node]) {
          take = take && !reaches(choice, children, view, child, move.eclass, visited, stamp);
        }
      }
      if (!take) {
        restore_readers(choice, children, move.eclass, move.node, released, view.readers);
        continue;
      }
      choice[move.eclass] = move.node;
      for (ClassIndex gone : released) view.rank[gone] = kNotExtracted;
      ++switches;
      switched = true;
      if (switches == max_switches) return switches;
      // A switch to children ranked below the class keeps the ranks a topological order;
      // after any other the ranks are redone in the next pass.
      if (!below) break;
    }
    if (!switched) return switches;
  }
  return switches;
}

}  // namespace saturate::extract
