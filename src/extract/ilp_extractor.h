#pragma once

#include "extract/extractor.h"
#include "extract/milp_problem.h"
#include "extract/problem_reduction.h"

namespace saturate::extract {

// Optimal extraction by DAG cost with an integer linear program solved by COIN-OR CBC in
// process (TENSAT section 5.1, strengthened; docs/EXTRACTION.md has the details):
//
//   x_n in {0,1} per candidate node, a_c in {0,1} per class with several candidates
//   (a class with one candidate uses that node's x as its a)
//   sum_{n in c} x_n = a_c      at most one node per class; the class is used or not
//   a_root = 1
//   x_n <= a_d                  for each child class d of n
//   a_c <= a_e                  for each class e that every extraction of c needs (must-sets)
//   minimize sum cost_n x_n
//
// Steps: greedy warm start (the better of greedy DAG and bottom-up), problem reduction with the
// warm start's cost as upper bound (problem_reduction.h), the model (extraction_model.h), then
// the cycle handling of ExtractOptions::cycles. "lazy" (the default) adds a cut for every cycle
// of at most six classes, tightens the LP relaxation with separated cycle and set cuts, then
// solves; while CBC's solution has a cycle, it cuts that cycle and solves again, until a
// solution is acyclic or time runs out. "real" and "integer" add TENSAT's order variables
// instead, only for classes that can be on a cycle. The result is the best acyclic extraction
// seen (the warm start if CBC found nothing better); proven_optimal only when CBC proved its
// acyclic solution optimal.
class IlpExtractor final : public Extractor {
 public:
  std::string name() const override { return "ilp"; }
  ExtractionResult extract(const ExtractionGraph& graph,
                           const ExtractOptions& options = {}) const override;
};

// The MILP that IlpExtractor starts from (before any cycle cut), for inspection or for other
// solvers (write_mps in cbc_solver.h). Column names: x<node>, a<class>, t<class>.
MilpProblem build_extraction_milp(const ExtractionGraph& graph, const ReducedProblem& problem,
                                  CycleHandling cycles);

}  // namespace saturate::extract
