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

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class CbcSolver : public MilpSolver {
 public:
  std::string name() const override { return "cbc"; }
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override {
    return solve_with_cbc(problem, settings, warm_start);
  }
  std::vector<MilpSolution> solve_each(
      const std::vector<const MilpProblem*>& problems, const MilpSettings& settings,
      const std::vector<std::vector<double>>& warm_starts) override {
    return solve_each_with_cbc(problems, settings, warm_starts);
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
    return solve_each({&problem}, settings, {warm_start}).front();
  }

  std::vector<MilpSolution> solve_each(
      const std::vector<const MilpProblem*>& problems, const MilpSettings& settings,
      const std::vector<std::vector<double>>& warm_starts) override {
    if (problems.empty()) return {};
    const auto start = std::chrono::steady_clock::now();
    MilpSettings first = settings;
    first.time_limit_seconds = std::min(settings.time_limit_seconds, kCbcFirstSeconds);
    std::vector<MilpSolution> solutions = cbc_.solve_each(problems, first, warm_starts);
    note("cbc");
    // The problems CBC left open go to HiGHS, from CBC's incumbent where it has one.
    std::vector<std::size_t> open;
    std::vector<const MilpProblem*> open_problems;
    std::vector<std::vector<double>> open_starts;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      if (solutions[i].proven_optimal || solutions[i].proven_infeasible) continue;
      open.push_back(i);
      open_problems.push_back(problems[i]);
      open_starts.push_back(solutions[i].has_solution ? solutions[i].values : warm_starts[i]);
    }
    MilpSettings rest = settings;
    rest.time_limit_seconds = settings.time_limit_seconds - seconds_since(start);
    if (open.empty() || rest.time_limit_seconds <= kLeastUsefulSolverSeconds) return solutions;

    MilpSolver* second = highs();
    std::vector<MilpSolution> next = second->solve_each(open_problems, rest, open_starts);
    note(second->name());
    for (std::size_t j = 0; j < open.size(); ++j) {
      solutions[open[j]] = continued(std::move(solutions[open[j]]), std::move(next[j]));
    }
    return solutions;
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

std::vector<MilpSolution> MilpSolver::solve_each(
    const std::vector<const MilpProblem*>& problems, const MilpSettings& settings,
    const std::vector<std::vector<double>>& warm_starts) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<MilpSolution> solutions;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    MilpSettings own = settings;
    own.time_limit_seconds = settings.time_limit_seconds - seconds_since(start);
    solutions.push_back(own.time_limit_seconds > kLeastUsefulSolverSeconds
                            ? solve(*problems[i], own, warm_starts[i])
                            : out_of_time());
  }
  return solutions;
}

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
