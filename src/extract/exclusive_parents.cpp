#include "extract/exclusive_parents.h"

#include <algorithm>
#include <set>
#include <utility>

#include "extract/sorted_set.h"

namespace saturate::extract {
namespace {

// Dominator passes before giving up. Sets only shrink from "everything", so a pass that stops
// early leaves sets too large, which would claim exclusions that do not hold: no rows then.
constexpr int kMaxDominatorPasses = 100;

using Dominators = std::vector<NodeIndex>;  // sorted

// (class, node) pairs of a parent's dominators and itself, sorted.
using Owners = std::vector<std::pair<ClassIndex, NodeIndex>>;

// Whether some class has one node among `a` and another among `b`.
bool conflict(const Owners& a, const Owners& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].first < b[j].first) {
      ++i;
    } else if (b[j].first < a[i].first) {
      ++j;
    } else {
      const ClassIndex eclass = a[i].first;
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && a[i_end].first == eclass) ++i_end;
      while (j_end < b.size() && b[j_end].first == eclass) ++j_end;
      for (std::size_t x = i; x < i_end; ++x) {
        for (std::size_t y = j; y < j_end; ++y) {
          if (a[x].second != b[y].second) return true;
        }
      }
      i = i_end;
      j = j_end;
    }
  }
  return false;
}

}  // namespace

std::vector<ExclusiveParents> exclusive_parent_rows(const ExtractionGraph& graph,
                                                    const ReducedProblem& problem,
                                                    const ExclusiveParentsLimits& limits) {
  const std::size_t classes = graph.class_count();
  auto modelled = [&](ClassIndex c) { return problem.needed[c] && !problem.candidates[c].empty(); };
  std::vector<std::vector<NodeIndex>> parents(classes);
  for (ClassIndex c = 0; c < classes; ++c) {
    if (!modelled(c)) continue;
    for (NodeIndex n : problem.candidates[c]) {
      for (ClassIndex d : problem.child_classes[n]) {
        if (modelled(d)) parents[d].push_back(n);
      }
    }
  }

  // Classes in breadth-first order from the roots, so that most parents come first.
  std::vector<bool> is_root(classes, false), seen(classes, false);
  std::vector<ClassIndex> order;
  for (ClassIndex root : problem.roots) {
    if (!modelled(root) || seen[root]) continue;
    is_root[root] = seen[root] = true;
    order.push_back(root);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (NodeIndex n : problem.candidates[order[i]]) {
      for (ClassIndex d : problem.child_classes[n]) {
        if (modelled(d) && !seen[d]) {
          seen[d] = true;
          order.push_back(d);
        }
      }
    }
  }

  // Iterative dominators: dom(e) = intersection over parents p of dom(class(p)) + {p}.
  std::vector<Dominators> dominators(classes);
  std::vector<bool> known(classes, false);
  for (ClassIndex root : order) {
    if (is_root[root]) known[root] = true;  // a root is used by definition: no dominators
  }
  bool changed = true;
  int passes = 0;
  Dominators next, scratch, with_parent;
  while (changed) {
    if (++passes > kMaxDominatorPasses) return {};
    changed = false;
    std::size_t entries = 0;
    for (ClassIndex e : order) {
      if (is_root[e]) continue;
      bool first = true;
      for (NodeIndex p : parents[e]) {
        const ClassIndex owner = graph.nodes[p].eclass;
        if (!known[owner]) continue;
        with_parent = dominators[owner];
        with_parent.insert(std::upper_bound(with_parent.begin(), with_parent.end(), p), p);
        if (first) {
          next.swap(with_parent);
          first = false;
        } else {
          intersect_with(next, with_parent, scratch);
        }
      }
      if (first) continue;  // no parent known yet
      if (!known[e] || next != dominators[e]) {
        known[e] = true;
        dominators[e] = next;
        changed = true;
      }
      entries += dominators[e].size();
      if (entries > limits.max_dominator_entries) return {};
    }
  }

  std::vector<ExclusiveParents> rows;
  std::vector<Owners> owners;
  std::set<std::vector<NodeIndex>> written;  // this class's rows so far
  for (ClassIndex d : order) {
    written.clear();
    const std::vector<NodeIndex>& users = parents[d];
    if (users.size() < 2 || users.size() > limits.max_parents) continue;
    owners.assign(users.size(), {});
    for (std::size_t i = 0; i < users.size(); ++i) {
      const ClassIndex owner = graph.nodes[users[i]].eclass;
      for (NodeIndex n : dominators[owner]) owners[i].emplace_back(graph.nodes[n].eclass, n);
      owners[i].emplace_back(owner, users[i]);
      std::sort(owners[i].begin(), owners[i].end());
    }
    // A greedy clique of pairwise exclusive parents from each parent (one per start: a clique
    // cover alone misses the pairs the LP takes apart).
    for (std::size_t start = 0; start < users.size(); ++start) {
      std::vector<std::size_t> clique = {start};
      for (std::size_t other = 0; other < users.size(); ++other) {
        if (other == start) continue;
        const bool fits = std::all_of(clique.begin(), clique.end(), [&](std::size_t member) {
          return conflict(owners[member], owners[other]);
        });
        if (fits) clique.push_back(other);
      }
      if (clique.size() < 2) continue;
      const ClassIndex first_class = graph.nodes[users[clique.front()]].eclass;
      const bool one_class = std::all_of(clique.begin(), clique.end(), [&](std::size_t member) {
        return graph.nodes[users[member]].eclass == first_class;
      });
      if (one_class) continue;  // the model's own rows already say this
      ExclusiveParents row{d, {}};
      for (std::size_t member : clique) row.users.push_back(users[member]);
      std::sort(row.users.begin(), row.users.end());
      if (!written.insert(row.users).second) continue;
      rows.push_back(std::move(row));
      if (rows.size() >= limits.max_rows) return rows;
    }
  }
  return rows;
}

}  // namespace saturate::extract
