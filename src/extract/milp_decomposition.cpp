#include "extract/milp_decomposition.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "extract/cbc_solver.h"
#include "extract/lp_branch_and_bound.h"

namespace saturate::extract {
namespace {

constexpr double kInfiniteBound = 1e29;  // bounds beyond this are absent (the models use 1e30)
constexpr double kFeasibilityTolerance = 1e-9;
// Larger parts go straight to the MILP solver, which solves the same LP first anyway: Clp's dual
// simplex without presolve took 21 s on a 43,695-column part (ResNeXt-50 at k_multi 3) and did
// not stop at its time limit.
constexpr std::size_t kRelaxationColumns = 5000;
// Small parts that the LP leaves open are first branched on in process (lp_branch_and_bound.h),
// within these limits; the MILP solver gets the rest.
constexpr std::size_t kBranchingNodes = 2000;
constexpr double kBranchingSeconds = 0.5;

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

// The bytes of a problem without its names: parts with equal keys are the same problem (a
// model's repeated blocks, such as BERT's layers) and are solved once.
std::string problem_key(const MilpProblem& problem) {
  std::string key;
  auto put = [&key](const auto& value) {
    key.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  put(problem.columns.size());
  for (const MilpProblem::Column& column : problem.columns) {
    put(column.lower);
    put(column.upper);
    put(column.objective);
    put(column.integer);
  }
  for (const MilpProblem::Row& row : problem.rows) {
    put(row.terms.size());
    for (const auto& [column, coefficient] : row.terms) {
      put(column);
      put(coefficient);
    }
    put(row.lower);
    put(row.upper);
  }
  return key;
}

}  // namespace

std::optional<MilpSolution> solve_by_relaxation(const MilpProblem& problem,
                                                const std::vector<double>& warm_start,
                                                double seconds) {
  LpRelaxation relaxation(problem);
  relaxation.set_time_limit(seconds);
  if (!relaxation.solve()) {
    if (!relaxation.proven_infeasible()) return std::nullopt;
    MilpSolution infeasible;
    infeasible.proven_infeasible = true;
    infeasible.status = "infeasible (its LP relaxation is)";
    return infeasible;
  }
  const double bound = relaxation.objective();
  const double tolerance = kLpTolerance * std::max(1.0, std::abs(bound));
  MilpSolution solution;
  solution.values = relaxation.values();
  const bool integral = round_integer_columns(problem, solution.values);
  // An integral LP optimum is the MILP's; so is a warm start whose cost the LP bound reaches.
  if (!integral || !satisfies(problem, solution.values, kLpTolerance) ||
      objective_of(problem, solution.values) > bound + tolerance) {
    if (warm_start.empty() || !satisfies(problem, warm_start, kLpTolerance) ||
        objective_of(problem, warm_start) > bound + tolerance) {
      return std::nullopt;
    }
    solution.values = warm_start;
  }
  solution.has_solution = solution.proven_optimal = true;
  solution.objective = objective_of(problem, solution.values);
  solution.bound = std::min(bound, solution.objective);
  solution.status = "optimal (LP relaxation)";
  return solution;
}

std::string DecomposingSolver::name() const {
  std::string name = inner_called_ ? inner_->name() : "";
  if (lp_settled_) name += name.empty() ? "clp" : ", clp";
  return name;
}

MilpSolution DecomposingSolver::solve(const MilpProblem& problem, const MilpSettings& settings,
                                      const std::vector<double>& warm_start) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds_left = [&] {
    return settings.time_limit_seconds -
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
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
  last_parts_by_lp_ = 0;
  last_parts_by_branching_ = 0;

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
  std::vector<std::vector<double>> part_starts(parts.size());
  if (!warm_start.empty()) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      for (int column : parts[p]) part_starts[p].push_back(warm_start[column]);
    }
  }

  // A part equal to an earlier one takes that one's solution.
  std::vector<std::size_t> same_as(parts.size());
  std::unordered_map<std::string, std::size_t> first_with_key;
  last_parts_repeated_ = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    same_as[p] = first_with_key.try_emplace(problem_key(subproblems[p]), p).first->second;
    last_parts_repeated_ += same_as[p] != p;
  }

  // Most parts of an extraction model are settled by their LP relaxation, solved here in
  // microseconds: only the others go to the MILP solver.
  std::vector<MilpSolution> solved(parts.size());
  std::vector<std::size_t> open;
  const bool time_for_lp = settle_by_lp_ && seconds_left() > kLeastUsefulSolverSeconds;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (same_as[p] != p) continue;
    const std::size_t size = subproblems[p].columns.size();
    std::optional<MilpSolution> settled;
    std::size_t* counter = &last_parts_by_lp_;
    if (time_for_lp && size <= kRelaxationColumns) {
      settled = solve_by_relaxation(subproblems[p], part_starts[p], seconds_left());
    }
    if (!settled && time_for_lp && size <= branching_columns_) {
      settled = solve_by_lp_branching(subproblems[p], part_starts[p],
                                      std::min(seconds_left(), kBranchingSeconds), kBranchingNodes);
      counter = &last_parts_by_branching_;
    }
    if (!settled) {
      open.push_back(p);
      continue;
    }
    if (settled->proven_infeasible) return *settled;
    solved[p] = std::move(*settled);
    ++*counter;
    lp_settled_ = true;
  }

  // The open parts go to the solver together (one process for all, with CBC), each alone.
  std::vector<const MilpProblem*> open_problems;
  std::vector<std::vector<double>> open_starts;
  for (std::size_t p : open) {
    open_problems.push_back(&subproblems[p]);
    open_starts.push_back(part_starts[p]);
  }
  MilpSettings rest = settings;
  rest.time_limit_seconds = seconds_left();
  std::vector<MilpSolution> answers;
  if (!open.empty()) {
    answers = inner_->solve_each(open_problems, rest, open_starts);
    inner_called_ = true;
  }
  for (std::size_t i = 0; i < open.size(); ++i) {
    MilpSolution& part = answers[i];
    if (part.proven_infeasible) {
      MilpSolution infeasible;
      infeasible.proven_infeasible = true;
      infeasible.status = "infeasible";
      return infeasible;
    }
    if (!part.has_solution && !part_starts[open[i]].empty()) {
      part.values = part_starts[open[i]];
      part.has_solution = true;
    }
    solved[open[i]] = std::move(part);
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (same_as[p] != p) solved[p] = solved[same_as[p]];
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
    const MilpSolution& part = solved[p];
    if (!part.has_solution) {
      combined.has_solution = false;
    } else {
      for (std::size_t i = 0; i < parts[p].size(); ++i) {
        combined.values[parts[p][i]] = part.values[i];
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
  combined.objective = combined.has_solution ? objective_of(problem, combined.values) : 0;
  for (int column = 0; column < columns; ++column) {
    if (fixed(column))
      combined.bound += problem.columns[column].objective * problem.columns[column].lower;
  }
  if (parts.size() == 1 && !combined.proven_optimal) {
    combined.status = solved[0].status;
  } else {
    combined.status = combined.proven_optimal
                          ? "optimal"
                          : std::to_string(proven) + " of " + std::to_string(parts.size()) +
                                " independent parts proven" + (limited > 0 ? " (time limit)" : "");
  }
  return combined;
}

}  // namespace saturate::extract
