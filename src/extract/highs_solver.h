#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extract/milp_solver.h"

namespace saturate {
class ChildProcess;
}

namespace saturate::extract {

// HiGHS, the MILP solver that proves optimality on the tensor e-graphs where CBC 2.10.8 stalls
// (docs/EXTRACTION.md has the comparison). Debian packages no HiGHS library; PyPI's highspy
// wheel carries one, so the solver runs in one long-lived `python3 -m saturate.milp_highs`
// helper that takes each problem as a line of JSON. Being another process, a solver crash costs
// the answer, not the caller.
class HighsSolver : public MilpSolver {
 public:
  // Starts the helper and checks that highspy loads; throws saturate::Error otherwise.
  HighsSolver();
  ~HighsSolver() override;

  std::string name() const override { return "highs " + version_; }
  // The HiGHS version the helper loaded, e.g. "1.16.0".
  const std::string& version() const { return version_; }
  // A helper failure gives a solution without values and a status saying what happened.
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override;

 private:
  void start_helper();

  std::unique_ptr<ChildProcess> helper_;
  std::string version_;
};

}  // namespace saturate::extract
