#include "extract/milp_decomposition.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace saturate::extract {
namespace {

constexpr double kInfiniteBound = 1e29;  // bounds beyond this are absent (the models use 1e30)
constexpr double kFeasibilityTolerance = 1e-9;

int find_root(std::vector<int>& parent, int column) {
  while (parent[column] != column) {
    parent[column] = parent[parent[column]];
    column = parent[column];
  }
  return column;
}

double shifted(double bound, double constant) {
  return std::abs(bound) >= kInfiniteBound ? bound : bound - constant;
}

}  // namespace

MilpSolution DecomposingSolver::solve(const MilpProblem& problem, const MilpSettings& settings,
                                      const std::vector<double>& warm_start) {
  const auto start = std::chrono::steady_clock::now();
  const int columns = static_cast<int>(problem.columns.size());
  auto fixed = [&](int column) {
    return problem.columns[column].lower == problem.columns[column].upper;
  };
  std::vector<int> parent(columns);
  std::iota(parent.begin(), parent.end(), 0);
  for (const MilpProblem::Row& row : problem.rows) {
    int first = -1;
    for (const auto& [column, coefficient] : row.terms) {
      if (fixed(column) || coefficient == 0) continue;
      if (first < 0) {
        first = find_root(parent, column);
      } else {
        parent[find_root(parent, column)] = first;
      }
    }
  }
  // Parts: free columns grouped by component, in column order.
  std::vector<int> part_of(columns, -1), root_part(columns, -1);
  std::vector<std::vector<int>> parts;
  for (int column = 0; column < columns; ++column) {
    if (fixed(column)) continue;
    const int root = find_root(parent, column);
    if (root_part[root] < 0) {
      root_part[root] = static_cast<int>(parts.size());
      parts.emplace_back();
    }
    part_of[column] = root_part[root];
    parts[part_of[column]].push_back(column);
  }
  last_parts_ = parts.size();
  if (parts.size() <= 1) return inner_->solve(problem, settings, warm_start);
  // Small models are proved whole in hundredths of a second, faster than one solver call per
  // part (each a process): split only what the first short attempt leaves open.
  MilpSettings whole_settings = settings;
  whole_settings.time_limit_seconds = std::min(settings.time_limit_seconds, whole_first_seconds_);
  MilpSolution whole;
  if (whole_settings.time_limit_seconds > 0.01) {
    whole = inner_->solve(problem, whole_settings, warm_start);
    if (whole.proven_optimal || whole.proven_infeasible) return whole;
  }
  const std::vector<double>& start_values = whole.has_solution ? whole.values : warm_start;

  // Each part's problem: its columns renumbered, its rows with the fixed columns' values moved
  // into the bounds. A row on fixed columns alone must already hold.
  MilpSolution combined;
  std::vector<MilpProblem> subproblems(parts.size());
  std::vector<int> local(columns, -1);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (int column : parts[p]) {
      local[column] = subproblems[p].add_column(problem.columns[column]);
    }
  }
  for (const MilpProblem::Row& row : problem.rows) {
    double constant = 0;
    int part = -1;
    std::vector<std::pair<int, double>> terms;
    for (const auto& [column, coefficient] : row.terms) {
      if (fixed(column) || coefficient == 0) {
        constant += coefficient * problem.columns[column].lower;
      } else {
        part = part_of[column];
        terms.emplace_back(local[column], coefficient);
      }
    }
    const double lower = shifted(row.lower, constant), upper = shifted(row.upper, constant);
    if (part < 0) {
      if (lower > kFeasibilityTolerance || upper < -kFeasibilityTolerance) {
        combined.proven_infeasible = true;
        combined.status = "infeasible (a row on fixed columns alone is violated)";
        return combined;
      }
      continue;
    }
    subproblems[part].add_row(std::move(terms), lower, upper);
  }

  combined.values.assign(columns, 0);
  for (int column = 0; column < columns; ++column) {
    if (fixed(column)) combined.values[column] = problem.columns[column].lower;
  }
  combined.has_solution = true;
  combined.proven_optimal = true;
  combined.bound = 0;
  std::size_t proven = 0, limited = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    MilpSettings part_settings = settings;
    part_settings.time_limit_seconds =
        settings.time_limit_seconds -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<double> part_start;
    if (!start_values.empty()) {
      for (int column : parts[p]) part_start.push_back(start_values[column]);
    }
    MilpSolution part;
    if (part_settings.time_limit_seconds > 0.01) {
      part = inner_->solve(subproblems[p], part_settings, part_start);
    } else {
      part.status = "time limit";
      part.stopped_on_limit = true;
      part.bound = -INFINITY;
    }
    if (part.proven_infeasible) {
      MilpSolution infeasible;
      infeasible.proven_infeasible = true;
      infeasible.status = "infeasible";
      return infeasible;
    }
    const std::vector<double>* values = part.has_solution ? &part.values : nullptr;
    if (values == nullptr && !part_start.empty()) values = &part_start;
    if (values == nullptr) {
      combined.has_solution = false;
    } else {
      for (std::size_t i = 0; i < parts[p].size(); ++i) {
        combined.values[parts[p][i]] = (*values)[i];
      }
    }
    proven += part.proven_optimal;
    limited += part.stopped_on_limit;
    combined.proven_optimal = combined.proven_optimal && part.proven_optimal;
    // A part's bound counts when its solver finished or stopped on the limit (not when it failed).
    const bool bounded =
        (part.proven_optimal || part.stopped_on_limit) && std::isfinite(part.bound);
    combined.bound += bounded ? part.bound : -INFINITY;
  }
  if (!combined.has_solution) combined.values.clear();
  combined.stopped_on_limit = limited > 0;
  combined.objective = 0;
  for (int column = 0; column < columns && combined.has_solution; ++column) {
    combined.objective += problem.columns[column].objective * combined.values[column];
  }
  for (int column = 0; column < columns; ++column) {
    if (fixed(column))
      combined.bound += problem.columns[column].objective * problem.columns[column].lower;
  }
  combined.status = combined.proven_optimal
                        ? "optimal"
                        : std::to_string(proven) + " of " + std::to_string(parts.size()) +
                              " independent parts proven" + (limited > 0 ? " (time limit)" : "");
  return combined;
}

}  // namespace saturate::extract
