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
//
// `seconds` is a hard limit: the solver is asked to keep its own, but CBC 2.10.8 checks its
// clock only between nodes and has overrun a one-second limit by twenty seconds at the root of a
// 40,000-column model. Past the limit and a grace period the child is killed; what it had not
// answered yet comes back as out_of_time() with a status that says so.
// Beyond a solver's time limit of `seconds`, how long it may still take to answer before it is
// killed (CBC here, the HiGHS helper in highs_solver.cpp).
double solver_grace_seconds(double seconds);

MilpSolution solve_isolated(const std::function<MilpSolution()>& solve, double seconds);

// Runs `solve(0)` ... `solve(count - 1)` one after another in one child process (one fork for
// many small problems). Each solution comes back as soon as it is found: when the child dies,
// the solutions before the failure are kept and the rest say what happened.
std::vector<MilpSolution> solve_each_isolated(std::size_t count,
                                              const std::function<MilpSolution(std::size_t)>& solve,
                                              double seconds);

}  // namespace saturate::extract
