#include "extract/extraction_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "extract/exclusive_parents.h"
#include "extract/sorted_set.h"

namespace saturate::extract {

ExtractionModel::ExtractionModel(const ExtractionGraph& graph, const ReducedProblem& problem,
                                 CycleHandling cycles)
    : graph_(graph),
      problem_(problem),
      node_column_(graph.node_count(), kNoColumn),
      class_column_(graph.class_count(), kNoColumn),
      order_column_(graph.class_count(), kNoColumn) {
  for (ClassIndex c = 0; c < graph.class_count(); ++c) {
    const auto& candidates = problem.candidates[c];
    if (!problem.needed[c] || candidates.empty()) continue;
    const double lower = problem.mandatory[c] ? 1 : 0;
    for (NodeIndex n : candidates) {
      node_column_[n] = milp_.add_column({candidates.size() == 1 ? lower : 0, 1,
                                          graph.nodes[n].cost, true, "x" + std::to_string(n)});
    }
    if (candidates.size() == 1) {
      // A class with one candidate needs no variable of its own.
      class_column_[c] = node_column_[candidates.front()];
      continue;
    }
    class_column_[c] = milp_.add_column({lower, 1, 0, true, "a" + std::to_string(c)});
    std::vector<std::pair<int, double>> terms;
    for (NodeIndex n : candidates) terms.emplace_back(node_column_[n], 1.0);
    terms.emplace_back(class_column_[c], -1.0);
    milp_.add_row(std::move(terms), 0, 0);
  }

  std::vector<ClassIndex> shared, scratch;
  for (ClassIndex c = 0; c < graph.class_count(); ++c) {
    const auto& candidates = problem.candidates[c];
    if (class_column_[c] == kNoColumn) continue;
    if (problem.has_implications) {
      // a_c <= a_e for every class e that any extraction using c must also use: without these
      // the LP can use a class "half" through each of two nodes that both need e, and pay for e
      // half.
      if (!problem.mandatory[c]) {
        for (ClassIndex e : problem.implied[c]) {
          if (problem.mandatory[e] || class_column_[e] == kNoColumn) continue;
          milp_.add_row({{class_column_[c], 1.0}, {class_column_[e], -1.0}}, -1e30, 0);
        }
      }
      // sum of x_n over the candidates that force e <= a_e (problem_reduction.h); they cover
      // the child classes too. At most one candidate is chosen, so the sum is valid, and two
      // candidates taken half each must pay for a class both force whole, not half.
      for (const auto& implication : problem.node_implications[c]) {
        if (class_column_[implication.implied] == kNoColumn) continue;
        std::vector<std::pair<int, double>> terms;
        for (NodeIndex n : implication.users) terms.emplace_back(node_column_[n], 1.0);
        terms.emplace_back(class_column_[implication.implied], -1.0);
        milp_.add_row(std::move(terms), -1e30, 0);
      }
      continue;
    }
    // Without must-sets: child classes every candidate needs get one row for the class.
    shared = problem.child_classes[candidates.front()];
    for (NodeIndex n : candidates) {
      intersect_with(shared, problem.child_classes[n], scratch);
    }
    for (ClassIndex d : shared) {
      if (problem.mandatory[d]) continue;  // a_d = 1
      milp_.add_row({{class_column_[c], 1.0}, {class_column_[d], -1.0}}, -1e30, 0);
    }
    // Every other child class d: sum of x_n over the candidates that need d <= a_d (valid, as
    // at most one candidate is chosen).
    std::map<ClassIndex, std::vector<std::pair<int, double>>> users;
    for (NodeIndex n : candidates) {
      for (ClassIndex d : problem.child_classes[n]) {
        if (problem.mandatory[d] || std::binary_search(shared.begin(), shared.end(), d)) continue;
        users[d].emplace_back(node_column_[n], 1.0);
      }
    }
    for (auto& [d, terms] : users) {
      terms.emplace_back(class_column_[d], -1.0);
      milp_.add_row(std::move(terms), -1e30, 0);
    }
  }
  for (const ExclusiveParents& row : extract::exclusive_parent_rows(graph, problem)) {
    std::vector<std::pair<int, double>> terms;
    for (NodeIndex p : row.users) terms.emplace_back(node_column_[p], 1.0);
    terms.emplace_back(class_column_[row.eclass], -1.0);
    milp_.add_row(std::move(terms), -1e30, 0);
    ++exclusive_parent_rows_;
  }
  for (ClassIndex root : problem.roots) {
    if (class_column_[root] != kNoColumn) milp_.columns[class_column_[root]].lower = 1;
  }
  if (cycles == CycleHandling::real_order || cycles == CycleHandling::integer_order) {
    add_order_constraints(cycles);
  }
}

// TENSAT's topological-order constraints, only where a cycle is possible: per class on a cycle
// an order variable t, and per node edge inside its component
//   real:    t_c - t_d >= eps - A (1 - x_n),  t in [0, 1], eps = 1 / (M + 1), A = 1 + eps
//   integer: t_c - t_d >= 1 - M (1 - x_n),    t in {0, ..., M - 1}
// with M the size of the component (a chosen path inside it has fewer than M edges).
void ExtractionModel::add_order_constraints(CycleHandling cycles) {
  integer_order_ = cycles == CycleHandling::integer_order;
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (class_column_[c] == kNoColumn || !problem_.on_cycle(c)) continue;
    const double size = static_cast<double>(problem_.component_size[problem_.component[c]]);
    order_column_[c] = milp_.add_column(
        {0, integer_order_ ? size - 1 : 1, 0, integer_order_, "t" + std::to_string(c)});
  }
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (order_column_[c] == kNoColumn) continue;
    const double size = static_cast<double>(problem_.component_size[problem_.component[c]]);
    const double step = integer_order_ ? 1 : 1 / (size + 1);
    const double big = integer_order_ ? size : 1 + step;
    for (NodeIndex n : problem_.candidates[c]) {
      for (ClassIndex d : problem_.child_classes[n]) {
        if (order_column_[d] == kNoColumn || problem_.component[d] != problem_.component[c]) {
          continue;
        }
        milp_.add_row({{order_column_[c], 1.0}, {order_column_[d], -1.0}, {node_column_[n], -big}},
                      step - big, 1e30);
      }
    }
  }
}

std::vector<double> ExtractionModel::assignment(const std::vector<NodeIndex>& choice) const {
  std::vector<double> values(milp_.columns.size(), 0.0);
  std::vector<NodeIndex> mapped(graph_.class_count(), kNoNode);
  for (ClassIndex c = 0; c < choice.size(); ++c) {
    if (choice[c] == kNoNode || class_column_[c] == kNoColumn) continue;
    const NodeIndex node = problem_.representative(choice[c], graph_);
    if (node == kNoNode || node_column_[node] == kNoColumn) return {};
    mapped[c] = node;
  }
  // Only what the roots reach: the exclusive-parent rows hold for minimal extractions alone.
  std::vector<bool> reached(graph_.class_count(), false);
  std::vector<ClassIndex> queue;
  for (ClassIndex root : problem_.roots) {
    if (mapped[root] != kNoNode && !reached[root]) {
      reached[root] = true;
      queue.push_back(root);
    }
  }
  for (std::size_t i = 0; i < queue.size(); ++i) {
    for (ClassIndex d : problem_.child_classes[mapped[queue[i]]]) {
      if (mapped[d] != kNoNode && !reached[d]) {
        reached[d] = true;
        queue.push_back(d);
      }
    }
  }
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (!reached[c]) {
      mapped[c] = kNoNode;
      continue;
    }
    values[node_column_[mapped[c]]] = 1;
    values[class_column_[c]] = 1;
  }
  // Order variables from a post-order of the mapped choice (children first).
  std::vector<std::size_t> position(graph_.class_count(), 0);
  std::vector<int> state(graph_.class_count(), 0);
  std::size_t next = 0;
  std::vector<std::pair<ClassIndex, std::size_t>> stack;
  for (ClassIndex start = 0; start < graph_.class_count(); ++start) {
    if (mapped[start] == kNoNode || state[start] != 0) continue;
    stack.emplace_back(start, 0);
    state[start] = 1;
    while (!stack.empty()) {
      auto& [c, i] = stack.back();
      const auto& children = problem_.child_classes[mapped[c]];
      if (i < children.size()) {
        const ClassIndex d = children[i++];
        if (mapped[d] == kNoNode) return {};  // incomplete: not a valid start
        if (state[d] == 1) return {};         // cyclic: not a valid start
        if (state[d] == 0) {
          state[d] = 1;
          stack.emplace_back(d, 0);
        }
        continue;
      }
      state[c] = 2;
      position[c] = next++;
      stack.pop_back();
    }
  }
  // Within each component, rank classes by position: 0, 1, 2, ... (scaled for real order).
  std::vector<std::vector<ClassIndex>> members(problem_.component_size.size());
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (order_column_[c] != kNoColumn) members[problem_.component[c]].push_back(c);
  }
  for (auto& list : members) {
    std::sort(list.begin(), list.end(),
              [&](ClassIndex a, ClassIndex b) { return position[a] < position[b]; });
    const double scale = integer_order_ ? 1 : 1 / static_cast<double>(list.size() + 1);
    for (std::size_t rank = 0; rank < list.size(); ++rank) {
      values[order_column_[list[rank]]] = static_cast<double>(rank) * scale;
    }
  }
  return values;
}

std::vector<NodeIndex> ExtractionModel::choice(const std::vector<double>& values) const {
  std::vector<NodeIndex> chosen(graph_.class_count(), kNoNode);
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (problem_.free_choice[c] != kNoNode) {
      chosen[c] = problem_.free_choice[c];
      continue;
    }
    if (class_column_[c] == kNoColumn || values[class_column_[c]] < 0.5) continue;
    for (NodeIndex n : problem_.candidates[c]) {
      if (values[node_column_[n]] > 0.5) chosen[c] = n;
    }
  }
  return chosen;
}

// For the cycle c_0 -> c_1 -> ... -> c_0 let y_i be the sum of x over the candidates of c_i with
// c_{i+1} as a child, and a_i c_i's class variable. At most one node per class and acyclicity
// give sum_i y_i <= sum_i a_i - a_0 (if all classes are used, one must leave the cycle; if
// some are not, a used class right before an unused one cannot point at it). As a_i - y_i is
// the sum of x over c_i's candidates that leave the cycle, the row reads
//   y_0 <= sum_{i > 0} sum_{n in c_i, n leaves the cycle} x_n
// and is stronger in the LP than "not all k edges" (sum_i y_i <= k - 1).
void ExtractionModel::add_cycle_cut(const ClassCycle& cycle) {
  std::vector<std::pair<int, double>> terms;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const ClassIndex c = cycle[i], next = cycle[(i + 1) % cycle.size()];
    for (NodeIndex n : problem_.candidates[c]) {
      const auto& children = problem_.child_classes[n];
      const bool on_cycle = std::binary_search(children.begin(), children.end(), next);
      if (i == 0 && on_cycle) terms.emplace_back(node_column_[n], 1.0);
      if (i > 0 && !on_cycle) terms.emplace_back(node_column_[n], -1.0);
    }
  }
  milp_.add_row(std::move(terms), -1e30, 0);
}

std::vector<ExtractionModel::SetCut> ExtractionModel::violated_set_cuts(
    const std::vector<double>& values) const {
  // Candidate sets: strongly connected components of the solution's support graph, keeping only
  // edges that carry at least a threshold of flow (several thresholds, from loose to strict).
  constexpr double kMinViolation = 1e-4;
  std::vector<SetCut> cuts;
  std::set<std::vector<ClassIndex>> seen;
  std::vector<bool> in_set(graph_.class_count(), false);
  for (double threshold : {1e-6, 0.05, 0.2, 0.5}) {
    std::vector<std::vector<ClassIndex>> successors(graph_.class_count());
    for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
      if (class_column_[c] == kNoColumn || !problem_.on_cycle(c)) continue;
      if (values[class_column_[c]] <= kMinViolation) continue;
      std::vector<std::pair<ClassIndex, double>> flow;
      for (NodeIndex n : problem_.candidates[c]) {
        const double x = values[node_column_[n]];
        if (x <= 1e-9) continue;
        for (ClassIndex d : problem_.child_classes[n]) {
          if (problem_.component[d] == problem_.component[c]) flow.emplace_back(d, x);
        }
      }
      std::sort(flow.begin(), flow.end());
      for (std::size_t i = 0; i < flow.size();) {
        double total = 0;
        std::size_t j = i;
        for (; j < flow.size() && flow[j].first == flow[i].first; ++j) total += flow[j].second;
        if (total > threshold) successors[c].push_back(flow[i].first);
        i = j;
      }
    }
    const std::vector<std::size_t> component = strongly_connected_components(successors);
    std::vector<std::vector<ClassIndex>> members(component_sizes(component).size());
    for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
      if (!successors[c].empty()) members[component[c]].push_back(c);
    }
    for (auto& set : members) {
      if (set.size() < 2) continue;
      for (ClassIndex c : set) in_set[c] = true;
      double sinks = 0, anchor_value = -1;
      ClassIndex anchor = set.front();
      for (ClassIndex c : set) {
        const double active = values[class_column_[c]];
        if (active > anchor_value) {
          anchor_value = active;
          anchor = c;
        }
        for (NodeIndex n : problem_.candidates[c]) {
          const auto& children = problem_.child_classes[n];
          if (std::none_of(children.begin(), children.end(),
                           [&](ClassIndex d) { return in_set[d]; })) {
            sinks += values[node_column_[n]];
          }
        }
      }
      for (ClassIndex c : set) in_set[c] = false;
      if (sinks < anchor_value - kMinViolation && seen.insert(set).second) {
        cuts.push_back({set, anchor});
      }
    }
  }
  return cuts;
}

void ExtractionModel::add_set_cut(const SetCut& cut) {
  std::vector<bool> in_set(graph_.class_count(), false);
  for (ClassIndex c : cut.classes) in_set[c] = true;
  std::vector<std::pair<int, double>> terms;
  bool anchor_listed = false;
  for (ClassIndex c : cut.classes) {
    for (NodeIndex n : problem_.candidates[c]) {
      const auto& children = problem_.child_classes[n];
      if (std::any_of(children.begin(), children.end(), [&](ClassIndex d) { return in_set[d]; })) {
        continue;
      }
      double coefficient = 1.0;
      // The anchor's single candidate is both a sink term and a_j: the terms cancel.
      if (class_column_[cut.anchor] == node_column_[n]) {
        coefficient -= 1.0;
        anchor_listed = true;
      }
      if (coefficient != 0) terms.emplace_back(node_column_[n], coefficient);
    }
  }
  if (!anchor_listed) terms.emplace_back(class_column_[cut.anchor], -1.0);
  milp_.add_row(std::move(terms), 0, 1e30);
}

std::vector<ClassCycle> ExtractionModel::violated_cycles(const std::vector<double>& values,
                                                         std::size_t max_cycles) const {
  // Edge c -> d weighs a_c - y_cd, the part of c that does not follow the edge; a cycle lighter
  // than a_0 violates its cut (see add_cycle_cut).
  constexpr double kMinViolation = 1e-4;
  std::vector<std::vector<WeightedEdge>> edges(graph_.class_count());
  std::vector<double> threshold(graph_.class_count(), 0);
  std::vector<double> follow;
  std::vector<ClassIndex> targets;
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (class_column_[c] == kNoColumn || !problem_.on_cycle(c)) continue;
    const double active = values[class_column_[c]];
    if (active <= kMinViolation) continue;
    threshold[c] = active - kMinViolation;
    targets.clear();
    for (NodeIndex n : problem_.candidates[c]) {
      for (ClassIndex d : problem_.child_classes[n]) {
        if (problem_.component[d] == problem_.component[c]) targets.push_back(d);
      }
    }
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    for (ClassIndex d : targets) {
      double along = 0;
      for (NodeIndex n : problem_.candidates[c]) {
        const auto& children = problem_.child_classes[n];
        if (std::binary_search(children.begin(), children.end(), d)) {
          along += values[node_column_[n]];
        }
      }
      edges[c].push_back({d, std::max(0.0, active - along)});
    }
  }
  return find_light_cycles(edges, threshold, max_cycles);
}

std::vector<ClassCycle> ExtractionModel::short_cycles(std::size_t max_length,
                                                      std::size_t max_cycles) const {
  std::vector<std::vector<ClassIndex>> successors(graph_.class_count());
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (class_column_[c] == kNoColumn || !problem_.on_cycle(c)) continue;
    auto& list = successors[c];
    for (NodeIndex n : problem_.candidates[c]) {
      for (ClassIndex d : problem_.child_classes[n]) {
        if (problem_.component[d] == problem_.component[c]) list.push_back(d);
      }
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return enumerate_short_cycles(successors, max_length, max_cycles);
}

bool ExtractionModel::has_cycles() const {
  for (ClassIndex c = 0; c < graph_.class_count(); ++c) {
    if (class_column_[c] != kNoColumn && problem_.on_cycle(c)) return true;
  }
  return false;
}

}  // namespace saturate::extract
