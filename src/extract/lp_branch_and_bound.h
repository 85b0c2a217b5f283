#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "extract/milp_problem.h"

namespace saturate::extract {

// Depth-first branch and bound on the LP relaxation, solved in process with Clp (LpRelaxation:
// dual simplex, warm from the last node), for the small parts of an extraction model that the
// LP alone leaves open. CBC settles those too, but through a process and its driver's setup:
// about 10 ms for a 90-column part of Inception-v3, where a few dozen warm LP solves take well
// under one. Branches on the most fractional integer column, 1 first; prunes by the LP bound
// against the incumbent (the warm start when it is feasible).
//
// Returns the proven optimum, or infeasibility; nullopt when it gives up (an integer column
// that is not binary, more than `max_nodes` nodes, `seconds` spent, or an LP that Clp neither
// solves nor proves infeasible), and the caller hands the problem to a MILP solver.
std::optional<MilpSolution> solve_by_lp_branching(const MilpProblem& problem,
                                                  const std::vector<double>& warm_start,
                                                  double seconds, std::size_t max_nodes);

}  // namespace saturate::extract
