#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/milp_problem.h"

namespace saturate::extract {

// A MILP solver back end of the ILP extractor. One instance serves the rounds of one extraction
// (the lazy cycle loop solves, cuts and solves again), so a back end may keep state between
// calls, such as a helper process.
class MilpSolver {
 public:
  virtual ~MilpSolver() = default;
  // What ran, e.g. "cbc" or "cbc, highs 1.16.0" (may grow as solve() is called).
  virtual std::string name() const = 0;
  // `warm_start`, when not empty, is a feasible assignment (one value per column) to start from.
  virtual MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                             const std::vector<double>& warm_start) = 0;
  // Independent problems, one after another within one time limit (`settings`), one warm start
  // each (empty: none); a problem reached with no time left gets out_of_time(). By default one
  // solve() each; a back end may batch them (CBC: one child process for all).
  virtual std::vector<MilpSolution> solve_each(const std::vector<const MilpProblem*>& problems,
                                               const MilpSettings& settings,
                                               const std::vector<std::vector<double>>& warm_starts);
};

// A solver chosen by name:
//   "cbc"    COIN-OR CBC, in a forked child (cbc_solver.h); solve_each() uses one child;
//   "highs"  HiGHS through `python3 -m saturate.milp_highs` (highs_solver.h); throws
//            saturate::Error when Python or highspy is missing;
//   "auto"   CBC for up to a second (it settles small models at once), then HiGHS from CBC's
//            incumbent for the rest of the time; CBC alone when HiGHS cannot start, and the
//            name says why. solve_each() gives CBC a second for all the problems together,
//            then HiGHS the ones left open.
// Throws saturate::Error on any other name.
std::unique_ptr<MilpSolver> make_milp_solver(std::string_view name);

std::vector<std::string> milp_solver_names();

}  // namespace saturate::extract
