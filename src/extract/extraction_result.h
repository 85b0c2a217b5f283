#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "extract/extraction_graph.h"

namespace saturate::extract {

// What an extractor returns: one chosen node per class the roots need, and what it costs.
struct ExtractionResult {
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  std::string method;  // the extractor's name, e.g. "ilp"
  std::string solver;  // the ILP's MILP solver, e.g. "highs 1.16.0" (empty for greedy methods)
  // Per class (class_count() entries): the chosen node, or kNoNode. Only classes reachable from
  // the roots through chosen nodes have a choice; evaluate_choice() drops the others.
  std::vector<NodeIndex> choice;
  bool found = false;    // every root and every child class of a chosen node has a choice
  bool acyclic = false;  // the chosen nodes reachable from the roots form no cycle
  // Sum of the costs of the distinct chosen nodes reachable from the roots, each counted once.
  double dag_cost = kInfinity;
  // Cost of the extracted term as a tree: a subterm counts every time it is used. Infinite when
  // the choice is cyclic or incomplete; may overflow to infinity on deep sharing.
  double tree_cost = kInfinity;

  bool proven_optimal = false;  // a solver proved no acyclic choice has a lower DAG cost
  double lower_bound = 0;       // a proven lower bound on the optimal DAG cost (0 if none)
  std::string status;           // how the extractor ended, e.g. "optimal", "time limit"
  double seconds = 0;           // wall time of extract()
  // Named numbers describing the run (reduction sizes, ILP rounds, cuts), for reports.
  std::vector<std::pair<std::string, double>> statistics;

  NodeIndex chosen(ClassIndex eclass) const {
    return eclass < choice.size() ? choice[eclass] : kNoNode;
  }
  void add_statistic(std::string name, double value) {
    statistics.emplace_back(std::move(name), value);
  }
};

// Builds a result from a per-class choice: keeps only the classes reachable from the roots
// through chosen nodes and fills found, acyclic, dag_cost and tree_cost. Chosen nodes must
// belong to their class (throws saturate::Error otherwise).
ExtractionResult evaluate_choice(const ExtractionGraph& graph, std::vector<NodeIndex> choice);

// DAG cost of the choice from the roots (each reachable chosen node once); infinity when a
// needed class has no choice.
double dag_cost(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice);

// Tree cost of the choice from the roots (shared subterms counted per use); infinity when a
// needed class has no choice or the choice is cyclic.
double tree_cost(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice);

}  // namespace saturate::extract
