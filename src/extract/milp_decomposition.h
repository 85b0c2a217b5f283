#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extract/milp_solver.h"

namespace saturate::extract {

// Solves a MILP as independent parts: columns fixed by their bounds are substituted, and the
// rest is split into connected components (columns linked by a row they share). Extraction
// models fall apart this way once the mandatory classes are fixed: Inception-v3's e-graph at
// k_multi 1 is 71 independent problems, one per block, and branch and bound over their product
// wastes its time where each part alone is proved at once. The whole problem gets a short first
// attempt (small models are proved at once, faster than a solver call per part); then each
// part goes to `inner` in turn,
// with the time left; the parts' objectives and bounds add up, and a part left without a
// solution takes the warm start's values (feasible, since the parts are independent).
class DecomposingSolver : public MilpSolver {
 public:
  // `whole_first_seconds`: the first attempt at the whole problem (0: split at once).
  explicit DecomposingSolver(std::unique_ptr<MilpSolver> inner, double whole_first_seconds = 0.25)
      : inner_(std::move(inner)), whole_first_seconds_(whole_first_seconds) {}
  std::string name() const override { return inner_->name(); }
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override;
  // Independent parts in the last problem solved (1 when it did not split).
  std::size_t last_parts() const { return last_parts_; }

 private:
  std::unique_ptr<MilpSolver> inner_;
  double whole_first_seconds_;
  std::size_t last_parts_ = 0;
};

}  // namespace saturate::extract
