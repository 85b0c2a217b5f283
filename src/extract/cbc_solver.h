#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extract/milp_problem.h"

namespace saturate::extract {

// Solves a MILP with COIN-OR CBC through CBC's standard driver (CbcMain1): for up to a second
// plain branch and bound on the LP, then, if the problem is still open, with its cut generators
// and heuristics on as in the `cbc` program, from the first run's incumbent. `warm_start`, when
// not empty, is a complete feasible assignment (one value per column) used as the first
// incumbent.
// The solver runs in a child process (solver_isolation.h): a CBC crash yields no solution and a
// status saying so, never a dead caller.
MilpSolution solve_with_cbc(const MilpProblem& problem, const MilpSettings& settings,
                            const std::vector<double>& warm_start = {});

// Solves independent MILPs one after another in one child process, sharing the time limit;
// `warm_starts` has one entry per problem (empty: none). A problem reached with no time left
// gets no solution and "time limit".
std::vector<MilpSolution> solve_each_with_cbc(const std::vector<const MilpProblem*>& problems,
                                              const MilpSettings& settings,
                                              const std::vector<std::vector<double>>& warm_starts);

// The LP relaxation of a MILP, solved with Clp and re-solved warm after rows are added: the
// ILP extractor's cutting-plane loop separates cycle cuts on its solutions.
class LpRelaxation {
 public:
  explicit LpRelaxation(const MilpProblem& problem);
  ~LpRelaxation();
  LpRelaxation(const LpRelaxation&) = delete;
  LpRelaxation& operator=(const LpRelaxation&) = delete;

  // Solves (warm after the first call); false when the LP is not solved to optimality.
  bool solve();
  // Solves give up (return false) once this long has passed from now (wall clock).
  void set_time_limit(double seconds);
  double objective() const;
  // After solve() returned false: whether the LP was proven to have no feasible point.
  bool proven_infeasible() const;
  std::vector<double> values() const;
  void add_row(const MilpProblem::Row& row);
  // From now on only column bounds change (branching): Clp keeps its factorization between
  // solves. add_row() must not follow.
  void prepare_for_branching();
  // Changes a column's bounds for the next solve (branching).
  void set_bounds(int column, double lower, double upper);

 private:
  struct Solver;
  std::unique_ptr<Solver> solver_;
  bool solved_once_ = false;
  bool for_branching_ = false, hot_start_options_set_ = false;
};

// Writes the problem as a free-format MPS file (for running other solvers on the same model).
void write_mps(const MilpProblem& problem, const std::string& path);

}  // namespace saturate::extract
