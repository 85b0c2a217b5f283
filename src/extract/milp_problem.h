#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace saturate::extract {

// A mixed-integer linear program in a solver-neutral form: minimize objective . x subject to
// row bounds and column bounds. The ILP extractor builds one and hands it to a solver backend.
struct MilpProblem {
  struct Column {
    double lower = 0;
    double upper = 1;
    double objective = 0;
    bool integer = true;
    std::string name;  // solvers match warm starts by name
  };
  struct Row {
    std::vector<std::pair<int, double>> terms;  // (column, coefficient)
    double lower;
    double upper;
  };

  std::vector<Column> columns;
  std::vector<Row> rows;

  int add_column(Column column) {
    columns.push_back(std::move(column));
    return static_cast<int>(columns.size()) - 1;
  }
  void add_row(std::vector<std::pair<int, double>> terms, double lower, double upper) {
    rows.push_back(Row{std::move(terms), lower, upper});
  }
  std::size_t nonzeros() const {
    std::size_t count = 0;
    for (const Row& row : rows) count += row.terms.size();
    return count;
  }
};

struct MilpSettings {
  double time_limit_seconds = 60;  // wall clock
  int threads = 1;
  double relative_gap = 0;
  bool log = false;
};

struct MilpSolution {
  bool has_solution = false;
  std::vector<double> values;  // per column, when has_solution
  double objective = 0;
  double bound = 0;  // the solver's proven lower bound
  bool proven_optimal = false;
  bool proven_infeasible = false;
  bool stopped_on_limit = false;
  std::string status;  // in words
};

// How far an LP value may be from an integer, or a row activity from its bound, and still count
// as on it (the in-process LP checks: decomposition and branching).
inline constexpr double kLpTolerance = 1e-7;

// Rounds the integer columns of `values` in place; false when one was further than
// kLpTolerance from its integer.
inline bool round_integer_columns(const MilpProblem& problem, std::vector<double>& values) {
  bool integral = true;
  for (std::size_t column = 0; column < problem.columns.size(); ++column) {
    if (!problem.columns[column].integer) continue;
    const double rounded = std::round(values[column]);
    if (std::abs(values[column] - rounded) > kLpTolerance) integral = false;
    values[column] = rounded;
  }
  return integral;
}

// The result of a second solver run that continued a first one from its incumbent: the
// second's, keeping the first's incumbent when the second found none, and the first's bound
// when that one stopped on its limit with a bound (a failed run has none).
inline MilpSolution continued(MilpSolution first, MilpSolution second) {
  if (!second.has_solution && first.has_solution) {
    second.has_solution = true;
    second.values = std::move(first.values);
    second.objective = first.objective;
  }
  if (first.stopped_on_limit && std::isfinite(first.bound)) {
    second.bound = std::max(second.bound, first.bound);
  }
  return second;
}

// objective . values.
inline double objective_of(const MilpProblem& problem, const std::vector<double>& values) {
  double objective = 0;
  for (std::size_t column = 0; column < problem.columns.size(); ++column) {
    objective += problem.columns[column].objective * values[column];
  }
  return objective;
}

// Whether `values` (one per column) keep every bound and row, up to `tolerance`.
inline bool satisfies(const MilpProblem& problem, const std::vector<double>& values,
                      double tolerance) {
  if (values.size() != problem.columns.size()) return false;
  for (std::size_t column = 0; column < problem.columns.size(); ++column) {
    const MilpProblem::Column& bounds = problem.columns[column];
    if (values[column] < bounds.lower - tolerance || values[column] > bounds.upper + tolerance) {
      return false;
    }
  }
  for (const MilpProblem::Row& row : problem.rows) {
    double activity = 0;
    for (const auto& [column, coefficient] : row.terms) activity += coefficient * values[column];
    if (activity < row.lower - tolerance || activity > row.upper + tolerance) return false;
  }
  return true;
}

// Less time than this is not worth a solver call.
inline constexpr double kLeastUsefulSolverSeconds = 0.01;

// The answer for a problem reached with no time left: no values, no bound.
inline MilpSolution out_of_time() {
  MilpSolution solution;
  solution.status = "time limit";
  solution.stopped_on_limit = true;
  solution.bound = -std::numeric_limits<double>::infinity();
  return solution;
}

}  // namespace saturate::extract
