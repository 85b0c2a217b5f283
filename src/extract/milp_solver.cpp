#include "extract/milp_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "extract/cbc_solver.h"
#include "extract/highs_solver.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::extract {
namespace {

class CbcSolver : public MilpSolver {
 public:
  std::string name() const override { return "cbc"; }
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override {
    return solve_with_cbc(problem, settings, warm_start);
  }
};

// CBC's share of each solve under "auto": it proves the small models in hundredths of a second,
// where HiGHS's helper alone takes 0.3 s to start.
constexpr double kCbcFirstSeconds = 1.0;

// "auto": CBC first, for at most kCbcFirstSeconds; when it has not settled the problem, HiGHS
// with the rest of the time, started from CBC's incumbent. Where HiGHS cannot start, CBC goes on.
class PortfolioSolver : public MilpSolver {
 public:
  std::string name() const override { return name_; }

  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override {
    const auto start = std::chrono::steady_clock::now();
    MilpSettings first = settings;
    first.time_limit_seconds = std::min(settings.time_limit_seconds, kCbcFirstSeconds);
    MilpSolution solution = cbc_.solve(problem, first, warm_start);
    note("cbc");
    const double left =
        settings.time_limit_seconds -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (solution.proven_optimal || solution.proven_infeasible || left <= 0.01) return solution;

    MilpSolver* second = highs();
    MilpSettings rest = settings;
    rest.time_limit_seconds = left;
    MilpSolution next =
        second->solve(problem, rest, solution.has_solution ? solution.values : warm_start);
    note(second->name());
    if (!next.has_solution && solution.has_solution) {
      next.has_solution = true;  // keep CBC's incumbent
      next.values = std::move(solution.values);
      next.objective = solution.objective;
    }
    // CBC's bound counts only from a run that stopped on its limit (a crashed child has none).
    if (solution.stopped_on_limit && std::isfinite(solution.bound)) {
      next.bound = std::max(next.bound, solution.bound);
    }
    return next;
  }

 private:
  // HiGHS, started on first use; CBC when it cannot start (the reason goes into the name).
  MilpSolver* highs() {
    if (highs_ != nullptr) return highs_.get();
    if (!highs_unavailable_.empty()) return &cbc_;
    try {
      highs_ = std::make_unique<HighsSolver>();
      return highs_.get();
    } catch (const Error& error) {
      highs_unavailable_ = error.what();
      name_ += " (HiGHS unavailable: " + highs_unavailable_ + ")";
      return &cbc_;
    }
  }
  void note(const std::string& solver) {
    if (name_.find(solver) == std::string::npos) name_ += name_.empty() ? solver : ", " + solver;
  }

  CbcSolver cbc_;
  std::unique_ptr<HighsSolver> highs_;
  std::string highs_unavailable_;
  std::string name_;
};

}  // namespace

std::unique_ptr<MilpSolver> make_milp_solver(std::string_view name) {
  if (name == "cbc") return std::make_unique<CbcSolver>();
  if (name == "highs") return std::make_unique<HighsSolver>();
  if (name == "auto") return std::make_unique<PortfolioSolver>();
  throw Error("unknown MILP solver '" + std::string(name) + "' (expected " +
              join(milp_solver_names(), ", ", [](const std::string& item) { return item; }) + ")");
}

std::vector<std::string> milp_solver_names() {
  return {"auto", "highs", "cbc"};
}

}  // namespace saturate::extract
