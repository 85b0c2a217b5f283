#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "extract/extraction_graph.h"
#include "support/deadline.h"

namespace saturate::extract {

struct ReductionOptions {
  // Off: only what correctness needs (filtered nodes, self loops, nodes with a child class that
  // has no usable node, classes the roots cannot reach). On: also free classes, dominated nodes
  // and the upper-bound test.
  bool simplify = true;
  // DAG cost of a known acyclic extraction; nodes that cannot be part of one at most as cheap
  // are dropped. Infinity: no bound.
  double upper_bound = std::numeric_limits<double>::infinity();
  // Simplification stops at the deadline (what correctness needs still runs, and is linear).
  Deadline deadline = Deadline::never();
};

// The extraction problem after removing what cannot matter. Every reduction keeps at least one
// optimal acyclic extraction (the reasons are next to each step in problem_reduction.cpp), and
// any acyclic extraction of the original graph maps to one of the reduced problem that costs no
// more (representative()).
//
// Vectors are indexed like the graph. The ILP needs variables only for candidate nodes of
// needed classes; free classes are covered by free_choice at no cost.
struct ReducedProblem {
  // Per class: the nodes the solver may choose. Empty for free and for unneeded classes.
  std::vector<std::vector<NodeIndex>> candidates;
  // Per node: its distinct child classes that need a choice (free classes left out), sorted.
  std::vector<std::vector<ClassIndex>> child_classes;
  // Per class: reachable from the roots through candidate nodes, and not free.
  std::vector<bool> needed;
  // Per class: a node of cost 0 whose child classes are all free, or kNoNode. Choosing it whenever
  // the class is used costs nothing and can close no cycle.
  std::vector<NodeIndex> free_choice;
  // Per class: every acyclic extraction of the reduced problem uses it (roots, and the child
  // classes that all of a mandatory class's candidates share).
  std::vector<bool> mandatory;
  // Per class: strongly connected component over candidate edges between needed classes, and
  // per component its size. Only classes of a component larger than one can be on a cycle.
  std::vector<std::size_t> component;
  std::vector<std::size_t> component_size;
  // Per needed class c: classes e that every acyclic extraction using c also uses (must-sets,
  // transitively reduced), for rows a_c <= a_e that tighten the LP relaxation. has_implications
  // is false when they were not computed (reduction off, or too many classes). Computed in
  // implication_rows.h, as are node_implications.
  std::vector<std::vector<ClassIndex>> implied;
  bool has_implications = false;
  // Per needed class c, when has_implications: rows
  // sum_{n in users} x_n <= a_e for every class e outside must(c) that choosing any of `users`
  // forces (e is in the must-set of a child class of each user), transitively reduced among
  // classes with the same users. They replace the rows x_n <= a_d for child classes d. In the
  // LP they stop c from reaching one expensive class through several candidates, each taken in
  // part, and paying for it only in part (Inception-v3: six split/concat routes to one conv).
  struct NodeImplication {
    ClassIndex implied;
    std::vector<NodeIndex> users;
  };
  std::vector<std::vector<NodeImplication>> node_implications;
  // Needed root classes (free roots need no decision).
  std::vector<ClassIndex> roots;
  // A sum of per-class minimum costs over mandatory classes: no extraction is cheaper.
  double lower_bound = 0;
  bool infeasible = false;  // a root has no candidate: no acyclic extraction exists
  std::string infeasible_reason;
  // Per node: the node that replaced it when it was dropped as dominated, else itself.
  std::vector<NodeIndex> replacement;
  std::vector<std::pair<std::string, double>> statistics;

  bool on_cycle(ClassIndex eclass) const { return component_size[component[eclass]] > 1; }
  // Maps a node of an acyclic extraction of the original graph to the node the reduced problem
  // uses instead (its dominator, or the class's free node). kNoNode when the class is not
  // needed.
  NodeIndex representative(NodeIndex node, const ExtractionGraph& graph) const;
};

ReducedProblem reduce_problem(const ExtractionGraph& graph, const ReductionOptions& options = {});

}  // namespace saturate::extract
