// The MILP solver back ends on small problems with known answers: CBC, HiGHS (skipped when
// Python has no highspy) and the "auto" portfolio.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "extract/lp_branch_and_bound.h"
#include "extract/milp_decomposition.h"
#include "extract/milp_solver.h"
#include "extract/solver_isolation.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::extract;

namespace {

// maximize 5a + 4b + 3c subject to 2a + 3b + c <= 5, 4a + b + 2c <= 11, 3a + 4b + 2c <= 8,
// binary: as minimization of the negated objective. Optimum a = b = 1, c = 0 (-9); the LP
// relaxation is fractional (a = c = 1, b = 2/3: -10.67), so the solver must branch or cut.
MilpProblem knapsack() {
  MilpProblem problem;
  for (double value : {5.0, 4.0, 3.0}) {
    problem.add_column({0, 1, -value, true, "v" + std::to_string(problem.columns.size())});
  }
  problem.add_row({{0, 2}, {1, 3}, {2, 1}}, -1e30, 5);
  problem.add_row({{0, 4}, {1, 1}, {2, 2}}, -1e30, 11);
  problem.add_row({{0, 3}, {1, 4}, {2, 2}}, -1e30, 8);
  return problem;
}

MilpProblem infeasible() {
  MilpProblem problem;
  problem.add_column({0, 1, 1, true, "x"});
  problem.add_column({0, 1, 1, true, "y"});
  problem.add_row({{0, 1}, {1, 1}}, 3, 1e30);  // two binaries cannot sum to 3
  return problem;
}

// `part` appended to `problem`, its columns renumbered after those already there.
void append(MilpProblem& problem, const MilpProblem& part) {
  const int offset = static_cast<int>(problem.columns.size());
  for (auto column : part.columns) problem.add_column(column);
  for (const auto& row : part.rows) {
    std::vector<std::pair<int, double>> terms;
    for (const auto& [column, coefficient] : row.terms)
      terms.emplace_back(column + offset, coefficient);
    problem.add_row(std::move(terms), row.lower, row.upper);
  }
}

void expect_knapsack_solved(MilpSolver& solver, const std::vector<double>& warm_start) {
  MilpSettings settings;
  settings.time_limit_seconds = 20;
  const MilpSolution solution = solver.solve(knapsack(), settings, warm_start);
  ASSERT_TRUE(solution.has_solution) << solution.status;
  EXPECT_TRUE(solution.proven_optimal) << solution.status;
  EXPECT_NEAR(solution.objective, -9, 1e-9);
  EXPECT_NEAR(solution.bound, -9, 1e-6);
  ASSERT_EQ(solution.values.size(), 3u);
  EXPECT_NEAR(solution.values[0], 1, 1e-9);
  EXPECT_NEAR(solution.values[1], 1, 1e-9);
  EXPECT_NEAR(solution.values[2], 0, 1e-9);
}

// Sets an environment variable for one scope.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (old_.empty()) {
      unsetenv(name_);
    } else {
      setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

}  // namespace

TEST(MilpSolver, CbcSolvesAKnapsack) {
  auto solver = make_milp_solver("cbc");
  EXPECT_EQ(solver->name(), "cbc");
  expect_knapsack_solved(*solver, {});
  expect_knapsack_solved(*solver, {0, 1, 0});  // a feasible but worse start
}

TEST(MilpSolver, HighsSolvesAKnapsackAndProvesInfeasibility) {
  std::unique_ptr<MilpSolver> solver;
  try {
    solver = make_milp_solver("highs");
  } catch (const Error& error) {
    GTEST_SKIP() << "HiGHS is not available: " << error.what();
  }
  EXPECT_EQ(solver->name().rfind("highs ", 0), 0u) << solver->name();
  expect_knapsack_solved(*solver, {});
  expect_knapsack_solved(*solver, {0, 1, 0});  // the helper serves several problems
  const MilpSolution none = solver->solve(infeasible(), MilpSettings{}, {});
  EXPECT_FALSE(none.has_solution);
  EXPECT_TRUE(none.proven_infeasible) << none.status;
  EXPECT_FALSE(none.proven_optimal);
  EXPECT_THROW(solver->solve(knapsack(), MilpSettings{}, {1, 0}), Error);  // wrong length
}

TEST(MilpSolver, AutoSettlesEasyProblemsWithCbcAlone) {
  auto solver = make_milp_solver("auto");
  expect_knapsack_solved(*solver, {});
  EXPECT_EQ(solver->name(), "cbc");  // proven at once: HiGHS never started
}

TEST(MilpSolver, HighsWithoutPythonIsAClearError) {
  ScopedEnvironment python("PYTHON", "/nonexistent/python3");
  try {
    make_milp_solver("highs");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("highspy"), std::string::npos) << error.what();
  }
}

TEST(MilpSolver, UnknownSolverNamesTheKnownOnes) {
  try {
    make_milp_solver("gurobi");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("highs"), std::string::npos) << error.what();
  }
  EXPECT_EQ(milp_solver_names(), (std::vector<std::string>{"auto", "highs", "cbc"}));
}

// Two knapsacks that share only a column fixed by its bounds: two independent parts, solved
// apart, their objectives and bounds added, the fixed column's cost included.
TEST(MilpSolver, DecompositionSolvesIndependentPartsApart) {
  MilpProblem problem;
  for (int copy = 0; copy < 2; ++copy) append(problem, knapsack());
  const int fixed = problem.add_column({1, 1, 2, true, "fixed"});
  problem.add_row({{0, 1}, {3, 1}, {fixed, 1}}, -1e30, 3);  // x0 + x3 <= 2: links nothing free
  problem.add_row({{fixed, 1}}, 1, 1);                      // holds on its own

  DecomposingSolver solver(make_milp_solver("cbc"));
  MilpSettings settings;
  settings.time_limit_seconds = 20;
  MilpSolution solution = solver.solve(problem, settings, {});
  EXPECT_EQ(solver.last_parts(), 1u);  // the first row links x0 and x3: one part
  EXPECT_NEAR(solution.objective, -16, 1e-9);

  problem.rows[problem.rows.size() - 2].terms = {{0, 1}, {fixed, 1}};  // now x0 <= 2 alone
  solution = solver.solve(problem, settings, {});
  EXPECT_EQ(solver.last_parts(), 2u);
  ASSERT_TRUE(solution.has_solution) << solution.status;
  EXPECT_TRUE(solution.proven_optimal) << solution.status;
  EXPECT_NEAR(solution.objective, -16, 1e-9);
  EXPECT_NEAR(solution.bound, -16, 1e-6);
  EXPECT_EQ(solution.values.size(), problem.columns.size());
  EXPECT_DOUBLE_EQ(solution.values[fixed], 1);

  // No time at all: each part keeps the warm start's values.
  settings.time_limit_seconds = 0;
  const std::vector<double> start = {0, 1, 0, 0, 1, 0, 1};
  solution = solver.solve(problem, settings, start);
  ASSERT_TRUE(solution.has_solution);
  EXPECT_FALSE(solution.proven_optimal);
  EXPECT_EQ(solution.values, start);
  EXPECT_NEAR(solution.objective, -6, 1e-9);

  problem.rows.back().lower = problem.rows.back().upper = 0;  // the fixed column must be 0: no
  EXPECT_TRUE(solver.solve(problem, MilpSettings{}, {}).proven_infeasible);
}

// Counts the problems it is given, their columns and the solve_each() calls, then lets CBC
// solve them.
class CountingSolver : public MilpSolver {
 public:
  CountingSolver(std::vector<std::size_t>* sizes, int* batches)
      : sizes_(sizes), batches_(batches) {}
  std::string name() const override { return "counting"; }
  MilpSolution solve(const MilpProblem& problem, const MilpSettings& settings,
                     const std::vector<double>& warm_start) override {
    sizes_->push_back(problem.columns.size());
    return cbc_->solve(problem, settings, warm_start);
  }
  std::vector<MilpSolution> solve_each(
      const std::vector<const MilpProblem*>& problems, const MilpSettings& settings,
      const std::vector<std::vector<double>>& warm_starts) override {
    ++*batches_;
    return MilpSolver::solve_each(problems, settings, warm_starts);
  }

 private:
  std::vector<std::size_t>* sizes_;
  int* batches_;
  std::unique_ptr<MilpSolver> cbc_ = make_milp_solver("cbc");
};

// A part whose LP is integral is settled in process; without branching in process, the two
// fractional knapsacks go to the solver in one solve_each() call, each alone; with it, they
// never reach the solver.
TEST(MilpSolver, DecompositionSettlesPartsByTheirLpAndBatchesTheRest) {
  MilpProblem problem;
  append(problem, knapsack());
  const int other = problem.add_column({0, 1, -1, true, "other"});
  problem.add_row({{other, 1}}, -1e30, 1);  // LP optimum other = 1: integral
  MilpProblem cheaper = knapsack();         // another problem with the same solution, -9 - 9
  for (auto& column : cheaper.columns) column.objective *= 2;
  append(problem, cheaper);
  std::vector<std::size_t> sizes;
  int batches = 0;
  DecomposingSolver solver(std::make_unique<CountingSolver>(&sizes, &batches), true,
                           /*branching_columns=*/0);
  const MilpSolution solution = solver.solve(problem, MilpSettings{}, {});
  EXPECT_EQ(solver.last_parts(), 3u);
  EXPECT_EQ(solver.last_parts_by_lp(), 1u);
  EXPECT_EQ(solver.last_parts_by_branching(), 0u);
  ASSERT_TRUE(solution.proven_optimal) << solution.status;
  EXPECT_NEAR(solution.objective, -28, 1e-9);
  EXPECT_NEAR(solution.bound, -28, 1e-6);
  EXPECT_DOUBLE_EQ(solution.values[other], 1);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 3}));
  EXPECT_EQ(batches, 1);

  // Only integral parts: the solver is never called.
  MilpProblem easy;
  easy.add_column({0, 1, -1, true, "a"});
  easy.add_column({0, 1, 2, true, "b"});
  easy.add_row({{0, 1}}, -1e30, 1);
  easy.add_row({{1, 1}}, -1e30, 1);
  sizes.clear();
  batches = 0;
  const MilpSolution settled = solver.solve(easy, MilpSettings{}, {});
  EXPECT_TRUE(settled.proven_optimal);
  EXPECT_NEAR(settled.objective, -1, 1e-9);
  EXPECT_EQ(solver.last_parts_by_lp(), 2u);
  EXPECT_TRUE(sizes.empty());
  EXPECT_EQ(batches, 0);

  // Branching in process settles the knapsacks too.
  sizes.clear();
  batches = 0;
  DecomposingSolver branching(std::make_unique<CountingSolver>(&sizes, &batches));
  const MilpSolution branched = branching.solve(problem, MilpSettings{}, {});
  ASSERT_TRUE(branched.proven_optimal) << branched.status;
  EXPECT_NEAR(branched.objective, -28, 1e-9);
  EXPECT_EQ(branching.last_parts_by_branching(), 2u);
  EXPECT_EQ(batches, 0);
  EXPECT_EQ(branching.name(), "clp");
}

// Repeated blocks: a part equal to an earlier one (names aside) is solved once.
TEST(MilpSolver, DecompositionSolvesEqualPartsOnce) {
  MilpProblem problem;
  for (int copy = 0; copy < 3; ++copy) {
    MilpProblem part = knapsack();
    for (auto& column : part.columns) column.name += "_copy" + std::to_string(copy);
    append(problem, part);
  }
  std::vector<std::size_t> sizes;
  int batches = 0;
  DecomposingSolver solver(std::make_unique<CountingSolver>(&sizes, &batches), true, 0);
  const MilpSolution solution = solver.solve(problem, MilpSettings{}, {});
  EXPECT_EQ(solver.last_parts(), 3u);
  EXPECT_EQ(solver.last_parts_repeated(), 2u);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3}));
  ASSERT_TRUE(solution.proven_optimal) << solution.status;
  EXPECT_NEAR(solution.objective, -27, 1e-9);
  EXPECT_NEAR(solution.bound, -27, 1e-6);
  EXPECT_EQ(solution.values, (std::vector<double>{1, 1, 0, 1, 1, 0, 1, 1, 0}));
}

TEST(MilpSolver, RelaxationSettlesOnlyWhatItProves) {
  // Fractional LP (-10.67 < -9), no warm start: open.
  EXPECT_FALSE(solve_by_relaxation(knapsack(), {}, 10).has_value());
  // A warm start worse than the LP bound proves nothing either.
  EXPECT_FALSE(solve_by_relaxation(knapsack(), {1, 1, 0}, 10).has_value());
  // An infeasible warm start is never taken, though it is below the bound (-12).
  EXPECT_FALSE(solve_by_relaxation(knapsack(), {1, 1, 1}, 10).has_value());
  // LP bound 1, reached by an integral point: proved (by the LP's vertex or the warm start).
  MilpProblem tie;
  tie.add_column({0, 1, 1, true, "x"});
  tie.add_column({0, 1, 1, true, "y"});
  tie.add_row({{0, 1}, {1, 1}}, 1, 1e30);  // x + y >= 1
  const auto proved = solve_by_relaxation(tie, {0, 1}, 10);
  ASSERT_TRUE(proved.has_value());
  EXPECT_TRUE(proved->proven_optimal);
  EXPECT_NEAR(proved->objective, 1, 1e-9);
  // An infeasible LP proves the MILP infeasible.
  const auto none = solve_by_relaxation(infeasible(), {}, 10);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->proven_infeasible);
}

TEST(LpBranching, SolvesAKnapsackAndProvesInfeasibility) {
  const auto knapsack_solution = solve_by_lp_branching(knapsack(), {}, 10, 1000);
  ASSERT_TRUE(knapsack_solution.has_value());
  EXPECT_TRUE(knapsack_solution->proven_optimal);
  EXPECT_NEAR(knapsack_solution->objective, -9, 1e-9);
  EXPECT_EQ(knapsack_solution->values, (std::vector<double>{1, 1, 0}));
  // From a worse feasible start, the same optimum.
  const auto from_start = solve_by_lp_branching(knapsack(), {0, 0, 1}, 10, 1000);
  ASSERT_TRUE(from_start.has_value());
  EXPECT_NEAR(from_start->objective, -9, 1e-9);

  const auto none = solve_by_lp_branching(infeasible(), {}, 10, 1000);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->proven_infeasible);
}

TEST(LpBranching, GivesUpRatherThanGuess) {
  EXPECT_FALSE(solve_by_lp_branching(knapsack(), {}, 10, 1).has_value());    // node limit
  EXPECT_FALSE(solve_by_lp_branching(knapsack(), {}, 0, 1000).has_value());  // no time
  MilpProblem general = knapsack();
  general.columns[0].upper = 3;  // not binary: fixing to 0 or 1 would miss values
  EXPECT_FALSE(solve_by_lp_branching(general, {}, 10, 1000).has_value());
}

// Random binary covering problems with costs: branching on the LP must find CBC's optimum.
TEST(LpBranching, AgreesWithCbcOnRandomProblems) {
  std::mt19937 random(20261201);
  auto cbc = make_milp_solver("cbc");
  int solved = 0;
  for (int trial = 0; trial < 200; ++trial) {
    MilpProblem problem;
    const int columns = 4 + static_cast<int>(random() % 16);
    for (int c = 0; c < columns; ++c) {
      problem.add_column({0, 1, static_cast<double>(random() % 10), true, "c" + std::to_string(c)});
    }
    const int rows = 2 + static_cast<int>(random() % 10);
    for (int r = 0; r < rows; ++r) {
      std::vector<std::pair<int, double>> terms;
      for (int c = 0; c < columns; ++c) {
        if (random() % 3 == 0) terms.emplace_back(c, 1 + static_cast<double>(random() % 3));
      }
      if (terms.empty()) continue;
      // Mostly covering rows (at least 2), some packing rows (at most 3).
      if (random() % 4 == 0) {
        problem.add_row(std::move(terms), -1e30, 3);
      } else {
        problem.add_row(std::move(terms), 2, 1e30);
      }
    }
    SCOPED_TRACE("trial " + std::to_string(trial));
    const MilpSolution reference = cbc->solve(problem, MilpSettings{}, {});
    const auto branched = solve_by_lp_branching(problem, {}, 10, 100000);
    ASSERT_TRUE(branched.has_value());
    EXPECT_EQ(branched->proven_infeasible, reference.proven_infeasible);
    if (reference.proven_optimal) {
      ASSERT_TRUE(branched->proven_optimal);
      EXPECT_NEAR(branched->objective, reference.objective, 1e-6);
      EXPECT_TRUE(satisfies(problem, branched->values, 1e-7));
      ++solved;
    }
  }
  EXPECT_GT(solved, 100);
}

// A solver that overruns its limit is stopped: the first answer is kept, the rest say why.
TEST(MilpSolver, IsolatedBatchStopsASolverThatOverrunsItsLimit) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<MilpSolution> solutions = solve_each_isolated(
      2,
      [](std::size_t i) {
        if (i == 1) std::this_thread::sleep_for(std::chrono::seconds(30));
        MilpSolution solution;
        solution.has_solution = true;
        solution.values = {1};
        return solution;
      },
      0.2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5);  // 0.2 s and the grace, not 30 s
  ASSERT_EQ(solutions.size(), 2u);
  EXPECT_TRUE(solutions[0].has_solution);
  EXPECT_FALSE(solutions[1].has_solution);
  EXPECT_TRUE(solutions[1].stopped_on_limit);
  EXPECT_NE(solutions[1].status.find("stopped"), std::string::npos) << solutions[1].status;
}

// Many problems in one child process: a crash loses the problems from the failing one on,
// never the ones solved before it, and never the caller.
TEST(MilpSolver, IsolatedBatchKeepsSolutionsBeforeACrash) {
  const std::vector<MilpSolution> solutions = solve_each_isolated(
      3,
      [](std::size_t i) {
        if (i == 1) std::abort();
        MilpSolution solution;
        solution.has_solution = true;
        solution.values = {static_cast<double>(i)};
        solution.status = "fine";
        return solution;
      },
      10);
  ASSERT_EQ(solutions.size(), 3u);
  EXPECT_TRUE(solutions[0].has_solution);
  EXPECT_EQ(solutions[0].status, "fine");
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_FALSE(solutions[i].has_solution);
    EXPECT_NE(solutions[i].status.find("CBC"), std::string::npos) << solutions[i].status;
  }
}
