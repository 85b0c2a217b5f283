#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extract/milp_solver.h"

namespace saturate::extract {

// The MILP's optimum when its LP relaxation settles it, solved in process with Clp: an integral
// LP optimum, or a warm start whose objective the LP bound reaches. Infeasible when the LP is;
// nullopt when the relaxation leaves the question open or is not solved within `seconds`.
std::optional<MilpSolution> solve_by_relaxation(const MilpProblem& problem,
                                                const std::vector<double>& warm_start,
                                                double seconds);

// Solves a MILP as independent parts: columns fixed by their bounds are substituted, and the
// rest is split into connected components (columns linked by a row they share). Extraction
// models fall apart this way once the mandatory classes are fixed: Inception-v3's e-graph at
// k_multi 1 is 71 independent problems, one per block, and branch and bound over their product
// wastes its time where each part alone is proved at once.
// Parts that are the same problem (repeated blocks) are solved once. Each part's LP relaxation
// is solved first, in process: most parts are settled there (solve_by_relaxation); a small part
// it leaves open is branched on, in process too (lp_branch_and_bound.h). The parts left open
// go to `inner` in one solve_each() call (CBC: one child process), one after another
// with the time left. The parts' objectives and bounds add up, and a part left without a
// solution takes the warm start's values (feasible, since the parts are independent).
class DecomposingSolver : public MilpSolver {
 public:
  // `settle_by_lp` false: every part goes to `inner`, without the in-process LP and branching
  // (tests of the MILP back ends use it).
  // `branching_columns`: parts up to this size are branched on in process (0: none).
  explicit DecomposingSolver(std::unique_ptr<MilpSolver> inner, bool settle_by_lp = true,
                             std::size_t branching_columns = 500)
      : inner_(std::move(inner)),
        settle_by_lp_(settle_by_lp),
        branching_columns_(branching_columns) {}
  // What ran: the inner solver's name once it was called, and "clp" when an LP settled a part
  // (e.g. "cbc, clp"; "clp" alone when no part needed the MILP solver).
  std::string name() const override;
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override;
  // Independent parts in the last problem solved, and how many of them the LP relaxation settled.
  std::size_t last_parts() const { return last_parts_; }
  std::size_t last_parts_by_lp() const { return last_parts_by_lp_; }
  // Parts settled by branch and bound on the LP in process.
  std::size_t last_parts_by_branching() const { return last_parts_by_branching_; }
  // Parts that were the same problem as an earlier part (a model's repeated blocks), and took
  // its solution.
  std::size_t last_parts_repeated() const { return last_parts_repeated_; }

 private:
  std::unique_ptr<MilpSolver> inner_;
  bool settle_by_lp_;
  std::size_t branching_columns_;
  std::size_t last_parts_ = 0;
  std::size_t last_parts_by_lp_ = 0;
  std::size_t last_parts_by_branching_ = 0;
  std::size_t last_parts_repeated_ = 0;
  bool inner_called_ = false, lp_settled_ = false;
};

}  // namespace saturate::extract
