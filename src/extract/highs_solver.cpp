#include "extract/highs_solver.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "extract/solver_isolation.h"
#include "support/child_process.h"
#include "support/error.h"
#include "support/json_helper_client.h"
#include "support/python_helper.h"

namespace saturate::extract {
namespace {

constexpr double kInfiniteBound = 1e30;  // the helper's spelling of an absent bound

double finite(double bound) {
  return std::clamp(bound, -kInfiniteBound, kInfiniteBound);
}

nlohmann::json problem_request(const MilpProblem& problem, const MilpSettings& settings,
                               const std::vector<double>& warm_start) {
  nlohmann::json lower = nlohmann::json::array(), upper = nlohmann::json::array(),
                 objective = nlohmann::json::array(), integer = nlohmann::json::array();
  for (const MilpProblem::Column& column : problem.columns) {
    lower.push_back(finite(column.lower));
    upper.push_back(finite(column.upper));
    objective.push_back(column.objective);
    integer.push_back(column.integer);
  }
  nlohmann::json row_lower = nlohmann::json::array(), row_upper = nlohmann::json::array(),
                 starts = nlohmann::json::array({0}), index = nlohmann::json::array(),
                 value = nlohmann::json::array();
  for (const MilpProblem::Row& row : problem.rows) {
    row_lower.push_back(finite(row.lower));
    row_upper.push_back(finite(row.upper));
    for (const auto& [column, coefficient] : row.terms) {
      index.push_back(column);
      value.push_back(coefficient);
    }
    starts.push_back(index.size());
  }
  return {
      {"columns",
       {{"lower", lower}, {"upper", upper}, {"objective", objective}, {"integer", integer}}},
      {"rows",
       {{"lower", row_lower},
        {"upper", row_upper},
        {"starts", starts},
        {"index", index},
        {"value", value}}},
      {"time_limit", std::max(settings.time_limit_seconds, 0.01)},
      {"threads", settings.threads},
      {"relative_gap", settings.relative_gap},
      {"log", settings.log},
      {"warm_start", warm_start.empty() ? nlohmann::json(nullptr) : nlohmann::json(warm_start)}};
}

double number_or(const nlohmann::json& value, double fallback) {
  return value.is_number() ? value.get<double>() : fallback;
}

}  // namespace

HighsSolver::HighsSolver() {
  start_helper();
}

void HighsSolver::start_helper() {
  try {
    helper_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{python_executable(), "-m", "saturate.milp_highs"},
        std::vector<std::string>{python_path_environment_entry()});
    version_ =
        ask_json_helper(*helper_, {{"hello", true}}, "HiGHS helper").value("highs", "unknown");
  } catch (const Error& error) {
    throw Error(std::string("the HiGHS solver needs Python with highspy: ") + error.what());
  }
}

HighsSolver::~HighsSolver() = default;

MilpSolution HighsSolver::solve(const MilpProblem& problem, const MilpSettings& settings,
                                const std::vector<double>& warm_start) {
  if (!warm_start.empty() && warm_start.size() != problem.columns.size()) {
    throw Error("HighsSolver: the warm start has " + std::to_string(warm_start.size()) +
                " values for " + std::to_string(problem.columns.size()) + " columns");
  }
  MilpSolution solution;
  nlohmann::json answer;
  // HiGHS checks its limit between steps, and one step can run far past it (minutes on some
  // extraction-gym e-graphs): past the limit and a little grace the helper is killed, and a
  // fresh one serves the next problem.
  const Deadline kill_at = Deadline::after(settings.time_limit_seconds +
                                           solver_grace_seconds(settings.time_limit_seconds));
  try {
    if (!helper_->running()) start_helper();
    answer = ask_json_helper(*helper_, problem_request(problem, settings, warm_start),
                             "HiGHS helper", {}, kill_at);
  } catch (const DeadlinePassed&) {
    solution.status = "time limit (HiGHS was stopped past its limit)";
    solution.stopped_on_limit = true;
    return solution;
  } catch (const Error& error) {
    solution.status = std::string("HiGHS failed: ") + error.what();
    return solution;
  }
  solution.status = answer.value("status", "unknown");
  solution.proven_optimal = answer.value("optimal", false);
  solution.proven_infeasible = answer.value("infeasible", false);
  solution.stopped_on_limit = answer.value("stopped_on_limit", false);
  solution.bound = number_or(answer["bound"], -INFINITY);
  if (answer.value("has_solution", false)) {
    const auto& values = answer["values"];
    if (!values.is_array() || values.size() != problem.columns.size()) {
      solution.status = "HiGHS returned " + std::to_string(values.size()) + " values for " +
                        std::to_string(problem.columns.size()) + " columns";
      solution.proven_optimal = false;
      return solution;
    }
    solution.values = values.get<std::vector<double>>();
    solution.has_solution = true;
    for (std::size_t i = 0; i < problem.columns.size(); ++i) {
      solution.objective += problem.columns[i].objective * solution.values[i];
    }
  }
  if (!solution.has_solution) solution.proven_optimal = false;
  return solution;
}

}  // namespace saturate::extract
