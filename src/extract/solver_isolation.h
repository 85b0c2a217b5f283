#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "extract/milp_problem.h"

namespace saturate::extract {

// Runs a solver call in a child process and returns its solution. CBC 2.10.8 (Debian's) aborts
// or crashes on some models (assertions in CbcModel::reducedCostFix, segfaults in Clp's
// presolve); isolated, such a failure becomes a solution with no values and a status that says
// what happened, and the caller falls back to its greedy start instead of dying.
MilpSolution solve_isolated(const std::function<MilpSolution()>& solve);

// Runs `solve(0)` ... `solve(count - 1)` one after another in one child process (one fork for
// many small problems). Each solution comes back as soon as it is found: when the child dies,
// the solutions before the failure are kept and the rest say what happened.
std::vector<MilpSolution> solve_each_isolated(
    std::size_t count, const std::function<MilpSolution(std::size_t)>& solve);

}  // namespace saturate::extract
