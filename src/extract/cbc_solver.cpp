#include "extract/cbc_solver.h"

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "extract/solver_isolation.h"
#include "support/error.h"

namespace saturate::extract {

namespace {

int ignore_progress(CbcModel* /*model*/, int /*where_from*/) {
  return 0;
}

void load_problem(const MilpProblem& problem, OsiClpSolverInterface& solver) {
  const int column_count = static_cast<int>(problem.columns.size());
  // The row-ordered matrix in one piece: appending rows one by one reallocates the whole matrix
  // each time (quadratic; minutes on an e-graph of 34,000 nodes).
  std::vector<double> elements;
  std::vector<int> indices;
  std::vector<CoinBigIndex> starts;
  std::vector<int> lengths;
  elements.reserve(problem.nonzeros());
  indices.reserve(problem.nonzeros());
  starts.reserve(problem.rows.size() + 1);
  lengths.reserve(problem.rows.size());
  std::vector<double> row_lower, row_upper;
  row_lower.reserve(problem.rows.size());
  row_upper.reserve(problem.rows.size());
  for (const auto& row : problem.rows) {
    starts.push_back(static_cast<CoinBigIndex>(elements.size()));
    for (const auto& [column, coefficient] : row.terms) {
      indices.push_back(column);
      elements.push_back(coefficient);
    }
    lengths.push_back(static_cast<int>(row.terms.size()));
    row_lower.push_back(row.lower);
    row_upper.push_back(row.upper);
  }
  starts.push_back(static_cast<CoinBigIndex>(elements.size()));
  CoinPackedMatrix matrix(false, column_count, static_cast<int>(problem.rows.size()),
                          static_cast<CoinBigIndex>(elements.size()), elements.data(),
                          indices.data(), starts.data(), lengths.data());
  std::vector<double> column_lower, column_upper, objective;
  for (const auto& column : problem.columns) {
    column_lower.push_back(column.lower);
    column_upper.push_back(column.upper);
    objective.push_back(column.objective);
  }
  solver.loadProblem(matrix, column_lower.data(), column_upper.data(), objective.data(),
                     row_lower.data(), row_upper.data());
  solver.setIntParam(OsiNameDiscipline, 2);  // keep names: warm starts are matched by name
  for (int i = 0; i < column_count; ++i) {
    if (problem.columns[i].integer) solver.setInteger(i);
    solver.setColName(i, problem.columns[i].name);
  }
}

// The LP by dual simplex: Clp's automatic choice runs Idiot, whose crossover crashes in
// ClpPresolve (CBC 2.10.8) on some extraction models, NasRNN's among them.
ClpSolve dual_simplex_without_presolve() {
  ClpSolve options;
  options.setSolveType(ClpSolve::useDual);
  options.setPresolveType(ClpSolve::presolveOff);
  return options;
}

std::string describe_status(const CbcModel& model) {
  if (model.isProvenOptimal()) return "optimal";
  if (model.isProvenInfeasible()) return "infeasible";
  switch (model.secondaryStatus()) {
    case 2:
      return "gap limit";
    case 3:
      return "node limit";
    case 4:
      return "time limit";
    case 5:
      return "interrupted";
    case 6:
      return "solution limit";
    case 7:
      return "unbounded";
    case 8:
      return "iteration limit";
    default:
      return "stopped (CBC status " + std::to_string(model.status()) + ")";
  }
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", std::max(seconds, 0.001));
  return text;
}

// CBC first branches on the LP without cut generators or heuristics for at most this long: their
// setup costs more than the search on most extraction models (an Inception-v3 part of 174
// columns: 0.3 s with them, 15 ms without; NasRNN's e-graph: 0.55 s against 0.18 s). A problem
// still open then gets them for the rest of the time, from the plain run's incumbent (NasRNN's
// e-graph with self-merges had a bound of 1.95 after 30 s with them, 1.06 without).
constexpr double kPlainBranchAndBoundSeconds = 1.0;

MilpSolution solve_in_process(const MilpProblem& problem, const MilpSettings& settings,
                              const std::vector<double>& warm_start, bool plain) {
  OsiClpSolverInterface solver;
  if (!settings.log) solver.messageHandler()->setLogLevel(0);
  load_problem(problem, solver);
  solver.setSolveOptions(dual_simplex_without_presolve());

  CbcModel model(solver);
  CbcSolverUsefulData data;
  data.noPrinting_ = !settings.log;
  data.useSignalHandler_ = false;  // a library must leave the process's signals alone
  CbcMain0(model, data);
  if (!settings.log) {
    model.messageHandler()->setLogLevel(0);
    model.solver()->messageHandler()->setLogLevel(0);
  }
  if (!warm_start.empty()) {
    std::vector<std::pair<std::string, double>> start;
    start.reserve(warm_start.size());
    for (std::size_t i = 0; i < warm_start.size(); ++i) {
      start.emplace_back(problem.columns[i].name, warm_start[i]);
    }
    model.setMIPStart(start);
  }

  std::vector<std::string> arguments = {
      "saturate", "-log", settings.log ? "1" : "0", "-timeMode", "elapsed", "-seconds",
      format_seconds(settings.time_limit_seconds),
      // CBC 2.10.8 can crash in CglPreProcess::postProcess after a time-limited run with a MIP
      // start.
      "-preprocess", "off", "-ratioGap", std::to_string(settings.relative_gap)};
  if (plain) arguments.insert(arguments.end(), {"-cuts", "off", "-heuristics", "off"});
  if (settings.threads > 1) {
    arguments.insert(arguments.end(), {"-threads", std::to_string(settings.threads)});
  }
  arguments.insert(arguments.end(), {"-solve", "-quit"});
  std::vector<const char*> argv;
  for (const auto& argument : arguments) argv.push_back(argument.c_str());
  CbcMain1(static_cast<int>(argv.size()), argv.data(), model, ignore_progress, data);

  MilpSolution solution;
  solution.proven_optimal = model.isProvenOptimal();
  solution.proven_infeasible = model.isProvenInfeasible();
  solution.stopped_on_limit = model.status() == 1;
  solution.status = describe_status(model);
  solution.bound = model.getBestPossibleObjValue();
  const double* best = model.bestSolution();
  if (best != nullptr && model.getNumCols() == static_cast<int>(problem.columns.size())) {
    solution.has_solution = true;
    solution.values.assign(best, best + problem.columns.size());
    solution.objective = 0;
    for (std::size_t i = 0; i < problem.columns.size(); ++i) {
      solution.objective += problem.columns[i].objective * solution.values[i];
    }
  }
  if (!solution.has_solution) solution.proven_optimal = false;
  return solution;
}

// A plain run first, then the full one on what it leaves open (kPlainBranchAndBoundSeconds).
MilpSolution solve_plain_then_full(const MilpProblem& problem, const MilpSettings& settings,
                                   const std::vector<double>& warm_start) {
  const auto start = std::chrono::steady_clock::now();
  MilpSettings plain_settings = settings;
  plain_settings.time_limit_seconds =
      std::min(settings.time_limit_seconds, kPlainBranchAndBoundSeconds);
  MilpSolution plain = solve_in_process(problem, plain_settings, warm_start, true);
  MilpSettings rest = settings;
  rest.time_limit_seconds =
      settings.time_limit_seconds -
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (plain.proven_optimal || plain.proven_infeasible ||
      rest.time_limit_seconds <= kLeastUsefulSolverSeconds) {
    return plain;
  }
  MilpSolution full =
      solve_in_process(problem, rest, plain.has_solution ? plain.values : warm_start, false);
  return continued(std::move(plain), std::move(full));
}

}  // namespace

MilpSolution solve_with_cbc(const MilpProblem& problem, const MilpSettings& settings,
                            const std::vector<double>& warm_start) {
  if (!warm_start.empty() && warm_start.size() != problem.columns.size()) {
    throw Error("solve_with_cbc: the warm start has " + std::to_string(warm_start.size()) +
                " values for " + std::to_string(problem.columns.size()) + " columns");
  }
  return solve_isolated([&] { return solve_plain_then_full(problem, settings, warm_start); },
                        settings.time_limit_seconds);
}

std::vector<MilpSolution> solve_each_with_cbc(const std::vector<const MilpProblem*>& problems,
                                              const MilpSettings& settings,
                                              const std::vector<std::vector<double>>& warm_starts) {
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (!warm_starts[i].empty() && warm_starts[i].size() != problems[i]->columns.size()) {
      throw Error("solve_each_with_cbc: warm start " + std::to_string(i) + " has " +
                  std::to_string(warm_starts[i].size()) + " values for " +
                  std::to_string(problems[i]->columns.size()) + " columns");
    }
  }
  const auto start = std::chrono::steady_clock::now();
  return solve_each_isolated(
      problems.size(),
      [&](std::size_t i) {
        MilpSettings own = settings;
        own.time_limit_seconds =
            settings.time_limit_seconds -
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (own.time_limit_seconds <= kLeastUsefulSolverSeconds) return out_of_time();
        return solve_plain_then_full(*problems[i], own, warm_starts[i]);
      },
      settings.time_limit_seconds);
}

struct LpRelaxation::Solver {
  OsiClpSolverInterface clp;
};

LpRelaxation::LpRelaxation(const MilpProblem& problem) : solver_(std::make_unique<Solver>()) {
  solver_->clp.messageHandler()->setLogLevel(0);
  load_problem(problem, solver_->clp);
  solver_->clp.setSolveOptions(dual_simplex_without_presolve());  // in process: the safe path
}

LpRelaxation::~LpRelaxation() = default;

bool LpRelaxation::solve() {
  if (solved_once_) {
    if (for_branching_ && !hot_start_options_set_) {
      // Clp's own settings for fast hot starts in branch and bound, set once the first LP is
      // solved (set before, they leave the first solution's values unread): keep the work
      // regions (1) and the factorization (8), only column bounds change (128), no crunching
      // (2048); resolve by dual simplex without presolve. A third of the time per node.
      solver_->clp.setHintParam(OsiDoPresolveInResolve, false, OsiHintDo);
      solver_->clp.setHintParam(OsiDoDualInResolve, true, OsiHintDo);
      solver_->clp.setSpecialOptions(solver_->clp.specialOptions() | 1 | 8 | 128 | 2048);
      hot_start_options_set_ = true;
    }
    solver_->clp.resolve();
  } else {
    solver_->clp.initialSolve();
    solved_once_ = true;
  }
  return solver_->clp.isProvenOptimal();
}

void LpRelaxation::set_time_limit(double seconds) {
  solver_->clp.getModelPtr()->setMaximumWallSeconds(std::max(seconds, 0.001));
  solver_->clp.getModelPtr()->setMaximumSeconds(std::max(seconds, 0.001));
}

void LpRelaxation::prepare_for_branching() {
  for_branching_ = true;
}

void LpRelaxation::set_bounds(int column, double lower, double upper) {
  solver_->clp.setColBounds(column, lower, upper);
}

bool LpRelaxation::proven_infeasible() const {
  return solver_->clp.isProvenPrimalInfeasible();
}

double LpRelaxation::objective() const {
  return solver_->clp.getObjValue();
}

std::vector<double> LpRelaxation::values() const {
  const double* values = solver_->clp.getColSolution();
  return std::vector<double>(values, values + solver_->clp.getNumCols());
}

void LpRelaxation::add_row(const MilpProblem::Row& row) {
  CoinPackedVector vector;
  for (const auto& [column, coefficient] : row.terms) vector.insert(column, coefficient);
  solver_->clp.addRow(vector, row.lower, row.upper);
}

void write_mps(const MilpProblem& problem, const std::string& path) {
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  load_problem(problem, solver);
  // Strict name discipline: writeMps throws a CoinError on rows left unnamed.
  for (int i = 0; i < static_cast<int>(problem.rows.size()); ++i) {
    solver.setRowName(i, "r" + std::to_string(i));
  }
  std::string stem = path;
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".mps") stem.resize(stem.size() - 4);
  solver.writeMps(stem.c_str(), "mps");
}

}  // namespace saturate::extract
