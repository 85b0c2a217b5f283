#include "extract/lp_branch_and_bound.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "extract/cbc_solver.h"

namespace saturate::extract {
namespace {

// One open node: the integer columns fixed on the way down from the root, in order.
using Fixings = std::vector<std::pair<int, double>>;

}  // namespace

std::optional<MilpSolution> solve_by_lp_branching(const MilpProblem& problem,
                                                  const std::vector<double>& warm_start,
                                                  double seconds, std::size_t max_nodes) {
  const auto start = std::chrono::steady_clock::now();
  const int columns = static_cast<int>(problem.columns.size());
  for (const MilpProblem::Column& column : problem.columns) {
    // Branching fixes a column to one value or the other: binaries only.
    if (column.integer && (column.lower < 0 || column.upper > 1)) return std::nullopt;
  }
  MilpSolution best;
  double incumbent = std::numeric_limits<double>::infinity();
  if (satisfies(problem, warm_start, kLpTolerance)) {
    best.values = warm_start;
    incumbent = objective_of(problem, warm_start);
  }

  LpRelaxation relaxation(problem);
  relaxation.set_time_limit(seconds);
  relaxation.prepare_for_branching();
  std::vector<Fixings> stack = {{}};
  Fixings applied;  // the fixings the LP holds now
  std::size_t nodes = 0;
  while (!stack.empty()) {
    if (++nodes > max_nodes ||
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      return std::nullopt;
    }
    Fixings node = std::move(stack.back());
    stack.pop_back();
    // Undo the previous node's fixings that this one does not share, then fix its own.
    std::size_t common = 0;
    while (common < applied.size() && common < node.size() && applied[common] == node[common]) {
      ++common;
    }
    for (std::size_t i = common; i < applied.size(); ++i) {
      const MilpProblem::Column& column = problem.columns[applied[i].first];
      relaxation.set_bounds(applied[i].first, column.lower, column.upper);
    }
    for (std::size_t i = common; i < node.size(); ++i) {
      relaxation.set_bounds(node[i].first, node[i].second, node[i].second);
    }
    applied = node;

    if (!relaxation.solve()) {
      if (relaxation.proven_infeasible()) continue;
      return std::nullopt;  // numerical trouble: leave it to a MILP solver
    }
    const double bound = relaxation.objective();
    if (bound >= incumbent - kLpTolerance * std::max(1.0, std::abs(incumbent))) continue;
    std::vector<double> values = relaxation.values();
    // Branch where the most cost hangs in the balance: fractionality times |cost| (a node's
    // cost; class columns cost nothing and are decided through their nodes). Against the most
    // fractional column this halves the nodes on Inception-v3's parts.
    int branch = -1;
    double best_score = -1;
    for (int column = 0; column < columns; ++column) {
      if (!problem.columns[column].integer) continue;
      const double distance = std::abs(values[column] - std::round(values[column]));
      if (distance <= kLpTolerance) continue;
      const double score = distance * (kLpTolerance + std::abs(problem.columns[column].objective));
      if (score > best_score) {
        best_score = score;
        branch = column;
      }
    }
    if (branch < 0) {
      round_integer_columns(problem, values);  // integral: no column was fractional
      if (!satisfies(problem, values, kLpTolerance)) return std::nullopt;
      incumbent = objective_of(problem, values);
      best.values = std::move(values);
      continue;
    }
    // Depth first, the branch that rounds the LP value explored first.
    const double down = 0, up = 1;
    Fixings first = node, second = std::move(node);
    const bool up_first = values[branch] - down >= 0.5;
    first.emplace_back(branch, up_first ? down : up);
    second.emplace_back(branch, up_first ? up : down);
    stack.push_back(std::move(first));
    stack.push_back(std::move(second));
  }
  if (best.values.empty()) {
    best.proven_infeasible = true;
    best.status = "infeasible (branch and bound on the LP)";
    return best;
  }
  best.has_solution = best.proven_optimal = true;
  best.objective = best.bound = objective_of(problem, best.values);
  best.status = "optimal (branch and bound on the LP)";
  return best;
}

}  // namespace saturate::extract
