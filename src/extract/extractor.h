#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extraction_graph.h"
#include "extract/extraction_result.h"
#include "support/deadline.h"

namespace saturate::extract {

// How the ILP keeps the extracted graph acyclic.
enum class CycleHandling {
  // No cycle constraints: right after cycle filtering. The result still says whether it is
  // acyclic (the choice is re-checked).
  none,
  // Solve without cycle constraints; while the solution has a cycle, add a constraint that
  // forbids that cycle and solve again (until acyclic or out of time). The default.
  lazy,
  // TENSAT's encoding: a real order variable t in [0, 1] per class on a cycle of the e-graph,
  // t_parent >= t_child + eps - A (1 - x_node).
  real_order,
  // TENSAT's integer variant: t in [0, M - 1], t_parent >= t_child + 1 - M (1 - x_node).
  integer_order,
};

std::string_view to_string(CycleHandling cycles);
// Parses "none", "lazy", "real", "integer"; throws saturate::Error on anything else.
CycleHandling parse_cycle_handling(std::string_view text);

struct ExtractOptions {
  double time_limit_seconds = 60;  // the ILP's wall-clock budget, greedy start and rounds included
  // An outer deadline (the whole command's); the ILP ends by the sooner of the two, keeping the
  // best extraction found by then.
  Deadline deadline = Deadline::never();
  int threads = 1;  // the MILP solver's threads
  // The ILP's MILP solver: "auto" (HiGHS when Python has highspy, CBC otherwise), "highs" or
  // "cbc" (milp_solver.h).
  std::string solver = "auto";
  bool warm_start = true;  // give the ILP the greedy-DAG extraction as first incumbent
  CycleHandling cycles = CycleHandling::lazy;
  bool reduce = true;           // shrink the problem before the ILP (problem_reduction.h)
  bool settle_by_lp = true;     // parts whose LP relaxation settles them skip the MILP solver
  double relative_gap = 0;      // ILP stops once (incumbent - bound) / incumbent <= this
  bool solver_log = false;      // let the MILP solver print its log
  int max_cycle_rounds = 1000;  // lazy cycle handling: cap on solve-and-cut rounds
};

// Chooses one node per needed class of an ExtractionGraph, minimizing a cost. Never chooses
// filtered nodes. Implementations are stateless, so one instance may be shared.
//
//   auto extractor = make_extractor("ilp");
//   ExtractionResult result = extractor->extract(graph, {.time_limit_seconds = 10});
//   if (result.found && result.acyclic) use(result.choice, result.dag_cost);
class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual std::string name() const = 0;
  virtual ExtractionResult extract(const ExtractionGraph& graph,
                                   const ExtractOptions& options = {}) const = 0;
};

// "bottom-up" (greedy by tree cost), "greedy-dag" (greedy by DAG cost), "ilp" (HiGHS or CBC).
std::unique_ptr<Extractor> make_extractor(std::string_view name);
std::vector<std::string> extractor_names();

}  // namespace saturate::extract
