#include "extract/ilp_extractor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "extract/bottom_up_extractor.h"
#include "extract/cbc_solver.h"
#include "extract/cycle_check.h"
#include "extract/extraction_model.h"
#include "extract/greedy_dag_extractor.h"
#include "extract/milp_decomposition.h"
#include "extract/milp_solver.h"

namespace saturate::extract {

namespace {

using Clock = std::chrono::steady_clock;

// Cycle cuts added per round: enough to break what one solution shows without flooding CBC.
constexpr std::size_t kMaxCutsPerRound = 200;
// Cycles this short get their cut before solving: in TENSAT's e-graphs the split/concat cycles
// are short and many, and finding them a few per solve wastes whole solver runs.
constexpr std::size_t kShortCycleLength = 6;
constexpr std::size_t kMaxShortCycles = 20000;
// The LP cut loop stops when the bound gained less than this fraction over that many rounds.
constexpr std::size_t kStallRounds = 20;
constexpr double kStallGain = 1e-4;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool usable(const ExtractionResult& result) {
  return result.found && result.acyclic;
}

// The cuts already in the model, so that none is added twice.
class CutPool {
 public:
  explicit CutPool(ExtractionModel& model) : model_(model) {}

  std::size_t add_cycles(const std::vector<ClassCycle>& cycles) {
    std::size_t added = 0;
    for (const ClassCycle& cycle : cycles) {
      if (!cycles_.insert(cycle).second) continue;
      model_.add_cycle_cut(cycle);
      ++added;
    }
    return added;
  }
  std::size_t add_sets(const std::vector<ExtractionModel::SetCut>& cuts) {
    std::size_t added = 0;
    for (const auto& cut : cuts) {
      if (!sets_.insert(cut.classes).second) continue;
      model_.add_set_cut(cut);
      ++added;
    }
    return added;
  }
  // Every cut a solution violates, from its cycles (integer solutions) and by separation.
  std::size_t add_violated(const std::vector<double>& values) {
    return add_cycles(model_.violated_cycles(values, kMaxCutsPerRound)) +
           add_sets(model_.violated_set_cuts(values));
  }
  std::size_t cycle_cuts() const { return cycles_.size(); }
  std::size_t set_cuts() const { return sets_.size(); }

 private:
  ExtractionModel& model_;
  std::set<ClassCycle> cycles_;
  std::set<std::vector<ClassIndex>> sets_;
};

// The better acyclic extraction of the two greedy ones (not usable() when neither has one).
ExtractionResult greedy_warm_start(const ExtractionGraph& graph, const ExtractOptions& options) {
  ExtractionResult greedy = GreedyDagExtractor().extract(graph, options);
  ExtractionResult bottom_up = BottomUpExtractor().extract(graph, options);
  if (usable(bottom_up) && (!usable(greedy) || bottom_up.dag_cost < greedy.dag_cost)) {
    return bottom_up;
  }
  return greedy;
}

struct LpTightening {
  int rounds = 0;
  double bound = 0;
};

// Cutting planes on the LP relaxation before branching. Without cycle cuts the relaxation lets
// a class be computed from itself through zero-cost split/concat cycles and its bound is far
// below the optimum. Violated cycle and set cuts are separated until none is left, the bound
// stalls, or the time is spent; CBC then starts from a model whose bound means something.
LpTightening tighten_lp_relaxation(ExtractionModel& model, CutPool& pool, Deadline until,
                                   bool log) {
  const auto start = Clock::now();
  LpTightening result;
  LpRelaxation relaxation(model.milp());
  relaxation.set_time_limit(until.seconds_left());
  std::vector<double> history;  // bound per round
  while (!until.expired() && relaxation.solve()) {
    ++result.rounds;
    result.bound = relaxation.objective();
    history.push_back(result.bound);
    if (log) {
      std::printf("lp cut round %d: bound %.6f, %zu rows, %.2f s\n", result.rounds, result.bound,
                  model.milp().rows.size(), seconds_since(start));
    }
    if (history.size() > kStallRounds &&
        result.bound - history[history.size() - 1 - kStallRounds] <=
            kStallGain * std::abs(result.bound)) {
      break;
    }
    const std::size_t rows_before = model.milp().rows.size();
    if (until.expired() || pool.add_violated(relaxation.values()) == 0) break;
    for (std::size_t r = rows_before; r < model.milp().rows.size(); ++r) {
      relaxation.add_row(model.milp().rows[r]);
    }
  }
  return result;
}

}  // namespace

MilpProblem build_extraction_milp(const ExtractionGraph& graph, const ReducedProblem& problem,
                                  CycleHandling cycles) {
  return ExtractionModel(graph, problem, cycles).milp();
}

ExtractionResult IlpExtractor::extract(const ExtractionGraph& graph,
                                       const ExtractOptions& options) const {
  const auto start = Clock::now();
  // One deadline for every step: the warm start, the reduction, the cuts, each solver round.
  const Deadline until = options.deadline.sooner(options.time_limit_seconds);
  auto remaining = [&] { return until.seconds_left(); };
  auto phase_start = start;
  auto phase_seconds = [&] {
    const double seconds = seconds_since(phase_start);
    phase_start = Clock::now();
    return seconds;
  };

  // The warm start is also the fallback result, and its cost the reduction's upper bound.
  ExtractionResult best;
  if (options.warm_start) {
    ExtractOptions within = options;
    within.deadline = until;
    best = greedy_warm_start(graph, within);
  }
  const bool have_start = usable(best);
  if (!have_start) best = evaluate_choice(graph, {});
  best.statistics.clear();
  best.proven_optimal = false;

  ReductionOptions reduction;
  reduction.simplify = options.reduce;
  if (have_start) reduction.upper_bound = best.dag_cost;
  reduction.deadline = until;
  const double warm_start_seconds = phase_seconds();
  const ReducedProblem problem = reduce_problem(graph, reduction);
  std::vector<std::pair<std::string, double>> statistics = problem.statistics;
  statistics.emplace_back("warm start dag cost", best.dag_cost);
  statistics.emplace_back("warm start seconds", warm_start_seconds);
  statistics.emplace_back("reduction seconds", phase_seconds());
  double lower_bound = problem.lower_bound;

  auto finish = [&](ExtractionResult result, std::string status) {
    result.method = name();
    result.status = std::move(status);
    result.statistics.insert(result.statistics.begin(), statistics.begin(), statistics.end());
    result.lower_bound =
        result.proven_optimal ? result.dag_cost : std::min(lower_bound, result.dag_cost);
    result.seconds = seconds_since(start);
    return result;
  };
  if (problem.infeasible) {
    return finish(evaluate_choice(graph, {}), "infeasible: " + problem.infeasible_reason);
  }

  ExtractionModel model(graph, problem, options.cycles);
  statistics.emplace_back("ilp columns", static_cast<double>(model.milp().columns.size()));
  statistics.emplace_back("ilp rows", static_cast<double>(model.milp().rows.size()));
  statistics.emplace_back("exclusive parent rows",
                          static_cast<double>(model.exclusive_parent_rows()));
  statistics.emplace_back("ilp nonzeros", static_cast<double>(model.milp().nonzeros()));
  std::vector<double> warm_start;
  if (have_start) warm_start = model.assignment(best.choice);
  statistics.emplace_back("warm start given", warm_start.empty() ? 0 : 1);
  if (model.milp().columns.empty()) {
    // The reduction decided everything (only free classes are needed).
    ExtractionResult result = evaluate_choice(graph, model.choice({}));
    result.proven_optimal = usable(result);
    std::string outcome =
        result.proven_optimal ? "optimal (solved by the reduction)" : "no extraction";
    return finish(std::move(result), std::move(outcome));
  }

  CutPool pool(model);
  LpTightening tightening;
  std::size_t short_cycle_cuts = 0;
  const bool lazy = options.cycles == CycleHandling::lazy;
  statistics.emplace_back("model seconds", phase_seconds());
  if (lazy && model.has_cycles() && !until.expired()) {
    short_cycle_cuts = pool.add_cycles(model.short_cycles(kShortCycleLength, kMaxShortCycles));
    statistics.emplace_back("short cycle seconds", phase_seconds());
    tightening =
        tighten_lp_relaxation(model, pool, until.sooner(remaining() / 2), options.solver_log);
    lower_bound = std::max(lower_bound, tightening.bound);
    statistics.emplace_back("lp tightening seconds", phase_seconds());
  }

  // Solve; with lazy cycle handling, cut the cycles of each cyclic solution and solve again.
  DecomposingSolver solver(make_milp_solver(options.solver), options.settle_by_lp);
  std::size_t parts = 0, parts_by_lp = 0, parts_by_branching = 0, parts_repeated = 0;
  MilpSettings settings;
  settings.threads = options.threads;
  settings.relative_gap = options.relative_gap;
  settings.log = options.solver_log;
  int rounds = 0;
  std::string status = "time limit reached before the solver ran";
  bool proven = false;
  // The last solution when it had a cycle: returned, marked cyclic, only if nothing acyclic
  // was found (without a warm start, or without cycle constraints).
  ExtractionResult cyclic_solution;
  while (rounds < std::max(1, options.max_cycle_rounds) && remaining() > 0.01) {
    ++rounds;
    settings.time_limit_seconds = remaining();
    const MilpSolution solution = solver.solve(model.milp(), settings, warm_start);
    if (solver.last_parts() >= parts) {
      parts = solver.last_parts();
      parts_by_lp = solver.last_parts_by_lp();
      parts_by_branching = solver.last_parts_by_branching();
      parts_repeated = solver.last_parts_repeated();
    }
    status = solution.status;
    if (std::isfinite(solution.bound)) lower_bound = std::max(lower_bound, solution.bound);
    if (!solution.has_solution) break;
    ExtractionResult candidate = evaluate_choice(graph, model.choice(solution.values));
    if (usable(candidate)) {
      if (!usable(best) || candidate.dag_cost <= best.dag_cost) best = std::move(candidate);
      proven = solution.proven_optimal;
      break;
    }
    if (!candidate.found) break;  // a feasible solution always covers its classes
    cyclic_solution = std::move(candidate);
    if (!lazy) break;
    const std::size_t added =
        pool.add_cycles(find_choice_cycles(graph, cyclic_solution.choice, kMaxCutsPerRound)) +
        pool.add_violated(solution.values);
    if (added == 0) break;  // nothing new to cut: give up rather than loop
  }

  ExtractionResult result;
  if (usable(best)) {
    result = std::move(best);
    result.proven_optimal = proven;
    if (proven) {
      status = "optimal";
    } else if (cyclic_solution.found) {
      status = "solver: " + status + ", but its solution has a cycle; kept the best acyclic one";
    } else if (rounds == 0) {
      status += "; kept the greedy warm start (not proven optimal)";
    }
  } else if (cyclic_solution.found) {
    result = std::move(cyclic_solution);
    status += " (the solution has a cycle)";
  } else {
    result = std::move(best);
  }
  statistics.emplace_back("solve seconds", phase_seconds());
  statistics.emplace_back("ilp rounds", rounds);
  statistics.emplace_back("independent parts", static_cast<double>(parts));
  statistics.emplace_back("parts settled by their LP", static_cast<double>(parts_by_lp));
  statistics.emplace_back("parts settled by branching on their LP",
                          static_cast<double>(parts_by_branching));
  statistics.emplace_back("parts equal to an earlier part", static_cast<double>(parts_repeated));
  statistics.emplace_back("cycle cuts", static_cast<double>(pool.cycle_cuts()));
  statistics.emplace_back("short cycle cuts", static_cast<double>(short_cycle_cuts));
  statistics.emplace_back("set cuts", static_cast<double>(pool.set_cuts()));
  statistics.emplace_back("lp cut rounds", tightening.rounds);
  statistics.emplace_back("lp bound", tightening.bound);
  statistics.emplace_back("lower bound", lower_bound);
  result.statistics.clear();
  result.solver = solver.name();
  return finish(std::move(result), status);
}

}  // namespace saturate::extract
