#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/term.h"
#include "support/error.h"

namespace saturate::egraph {

// Tree size: every node costs 1 plus its children.
struct AstSize {
  template <typename Node>
  double operator()(const Node& /*node*/, std::span<const double> child_costs) const {
    double cost = 1;
    for (double child : child_costs) cost += child;
    return cost;
  }
};

// Tree depth.
struct AstDepth {
  template <typename Node>
  double operator()(const Node& /*node*/, std::span<const double> child_costs) const {
    double deepest = 0;
    for (double child : child_costs) deepest = std::max(deepest, child);
    return 1 + deepest;
  }
};

// Bottom-up greedy extraction by tree cost (egg's Extractor): each class gets the cheapest node
// given its children's best costs, iterated to a fixed point. A simple helper for tests and
// small uses; shared subterms are counted once per use, and the real extractors (DAG cost, ILP)
// live in the extract part.
//
//   TreeExtractor extractor(egraph, AstSize{});
//   Term<Symbol> best = extractor.extract(root);
//
// The cost function is called as cost(node, child_costs) and must grow with its children's
// costs (as sums and maxima do) so the chosen nodes never form a cycle.
template <typename Graph, typename CostFunction>
class TreeExtractor {
 public:
  using Node = typename Graph::Node;
  using Op = typename Graph::Label;
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  TreeExtractor(const Graph& egraph, CostFunction cost_function)
      : egraph_(egraph), cost_function_(std::move(cost_function)) {
    if (!egraph.is_clean()) throw Error("TreeExtractor: rebuild() the e-graph before extracting");
    costs_.assign(egraph.id_bound(), kInfinity);
    best_.assign(egraph.id_bound(), nullptr);
    std::vector<double> child_costs;
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& eclass : egraph.classes()) {
        for (const Node& node : eclass.nodes) {
          if (!egraph.is_visible(eclass.id, node)) continue;
          child_costs.clear();
          bool known = true;
          for (EClassId child : node.children) {
            double cost = costs_[egraph.find(child).index()];
            known = known && cost != kInfinity;
            child_costs.push_back(cost);
          }
          if (!known) continue;
          double cost = cost_function_(node, std::span<const double>(child_costs));
          if (cost < costs_[eclass.id.index()]) {
            costs_[eclass.id.index()] = cost;
            best_[eclass.id.index()] = &node;
            changed = true;
          }
        }
      }
    }
  }

  // Infinity if the class has no finite term.
  double cost(EClassId id) const { return costs_[egraph_.find(id).index()]; }
  const Node* best_node(EClassId id) const { return best_[egraph_.find(id).index()]; }

  // The cheapest term of the class. Throws saturate::Error if it has no finite term.
  Term<Op> extract(EClassId root) const {
    Term<Op> term;
    std::vector<EClassId> index_of(egraph_.id_bound());
    add(egraph_.find(root), term, index_of, 0);
    return term;
  }

  std::pair<double, Term<Op>> find_best(EClassId root) const { return {cost(root), extract(root)}; }

 private:
  EClassId add(EClassId id, Term<Op>& term, std::vector<EClassId>& index_of,
               std::size_t depth) const {
    if (index_of[id.index()].valid()) return index_of[id.index()];
    const Node* best = best_[id.index()];
    if (best == nullptr) {
      throw Error("TreeExtractor: e-class e" + std::to_string(id.value()) +
                  " has no term of finite cost");
    }
    if (depth > egraph_.id_bound()) {
      throw Error(
          "TreeExtractor: the cost function chose a cycle; it must grow with the costs "
          "of the children");
    }
    Node node = *best;
    for (EClassId& child : node.children) {
      child = add(egraph_.find(child), term, index_of, depth + 1);
    }
    EClassId index = term.add(std::move(node));
    index_of[id.index()] = index;
    return index;
  }

  const Graph& egraph_;
  CostFunction cost_function_;
  std::vector<double> costs_;      // by class id
  std::vector<const Node*> best_;  // by class id; points into the e-graph's classes
};

}  // namespace saturate::egraph
