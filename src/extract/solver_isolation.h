#pragma once

#include <functional>

#include "extract/milp_problem.h"

namespace saturate::extract {

// Runs a solver call in a child process and returns its solution. CBC 2.10.8 (Debian's) aborts
// or crashes on some models (assertions in CbcModel::reducedCostFix, segfaults in Clp's
// presolve); isolated, such a failure becomes a solution with no values and a status that says
// what happened, and the caller falls back to its greedy start instead of dying.
MilpSolution solve_isolated(const std::function<MilpSolution()>& solve);

}  // namespace saturate::extract
