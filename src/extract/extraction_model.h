#pragma once

#include <cstddef>
#include <vector>

#include "extract/cycle_check.h"
#include "extract/extraction_graph.h"
#include "extract/extractor.h"
#include "extract/milp_problem.h"
#include "extract/problem_reduction.h"

namespace saturate::extract {

// The extraction MILP of IlpExtractor (see ilp_extractor.h for the formulation) with the maps
// between its columns and the graph, and the cycle cuts: how they are written and how violated
// ones are found in a solution. Column names: x<node>, a<class>, t<class>.
class ExtractionModel {
 public:
  ExtractionModel(const ExtractionGraph& graph, const ReducedProblem& problem,
                  CycleHandling cycles);

  const MilpProblem& milp() const { return milp_; }
  // Column values for an acyclic choice of the original graph (mapped through the reduction);
  // empty when it cannot be expressed (then no warm start is given).
  std::vector<double> assignment(const std::vector<NodeIndex>& choice) const;
  // The choice of a solution: per needed class the node set to 1, per free class its free node.
  std::vector<NodeIndex> choice(const std::vector<double>& values) const;
  // Forbids one cycle: its classes cannot all choose a node pointing to the next class.
  void add_cycle_cut(const ClassCycle& cycle);
  // Cycles whose cut the (fractional or integer) solution violates, each starting at the class
  // the cut is written for.
  std::vector<ClassCycle> violated_cycles(const std::vector<double>& values,
                                          std::size_t max_cycles) const;
  // Sets S of classes (with an anchor class j in S) whose cut
  //   sum over c in S of sum over candidates n of c with no child class in S of x_n >= a_j
  // the solution violates. Valid because the used classes of S, if any, have a sink in an acyclic
  // extraction: a used class whose node has no child in S.
  struct SetCut {
    std::vector<ClassIndex> classes;  // sorted
    ClassIndex anchor;
  };
  std::vector<SetCut> violated_set_cuts(const std::vector<double>& values) const;
  void add_set_cut(const SetCut& cut);
  // Every cycle of at most max_length classes among the candidates' edges, for cuts up front.
  std::vector<ClassCycle> short_cycles(std::size_t max_length, std::size_t max_cycles) const;
  // Whether some class with a variable can be on a cycle (only then are cycle cuts needed).
  bool has_cycles() const;
  // Rows from exclusive_parents.h in the model.
  std::size_t exclusive_parent_rows() const { return exclusive_parent_rows_; }

 private:
  static constexpr int kNoColumn = -1;

  void add_order_constraints(CycleHandling cycles);

  const ExtractionGraph& graph_;
  const ReducedProblem& problem_;
  MilpProblem milp_;
  std::vector<int> node_column_;   // per node
  std::vector<int> class_column_;  // per class: a_c, or the single candidate's x
  std::vector<int> order_column_;  // per class on a cycle, with order constraints
  bool integer_order_ = false;
  std::size_t exclusive_parent_rows_ = 0;
};

}  // namespace saturate::extract
