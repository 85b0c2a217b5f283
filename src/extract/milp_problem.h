#pragma once

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
