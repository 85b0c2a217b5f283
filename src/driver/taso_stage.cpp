// The TASO baseline as the pipeline's search step, reported in the same shape as equality
// saturation so that the two can be compared run for run.
#include <cstdio>

#include "driver/search_stages.h"
#include "search/taso_search.h"

namespace saturate::driver {

SearchOutcome run_taso_baseline(const ir::Graph& graph, const eqsat::RuleSet& rules,
                                const cost::CostModel& model, const PipelineOptions& options,
                                const Deadline& deadline) {
  search::TasoOptions settings;
  settings.alpha = options.alpha;
  settings.budget = options.budget;
  settings.time_limit_seconds = deadline.seconds_left();
  settings.progress = [budget = options.budget](const search::TasoProgress& progress) {
    std::fprintf(stderr, "\rtaso: %zu/%zu expansions, best %.4f ms, queue %zu, %.1f s",
                 progress.expansions, budget, progress.best_cost, progress.queue_size,
                 progress.elapsed_seconds);
  };
  std::fprintf(stderr, "taso search on %s: %zu operators, %zu rules, alpha %g, budget %zu\n",
               graph.name().c_str(), graph.num_operators(), rules.size(), options.alpha,
               options.budget);
  search::TasoResult result = search::taso_search(graph, rules, model, settings);
  std::fprintf(stderr, "\n");

  const search::CandidateCounts& c = result.candidates;
  SearchOutcome outcome;
  outcome.original_cost = result.original_cost;
  outcome.optimized_cost = result.optimized_cost;
  outcome.kept_original = result.best_path.empty();
  outcome.report = {{"alpha", options.alpha},
                    {"budget", options.budget},
                    {"expansions", result.expansions},
                    {"stop_reason", std::string(search::to_string(result.stop_reason))},
                    {"total_seconds", result.total_seconds},
                    {"seconds_to_best", result.seconds_to_best},
                    {"expansion_of_best", result.expansion_of_best},
                    {"best_path", result.best_path},
                    {"max_queue_size", result.max_queue_size},
                    {"candidates",
                     {{"matches", c.matches},
                      {"generated", c.generated},
                      {"kept", c.kept},
                      {"shape_rejected", c.shape_rejected},
                      {"condition_rejected", c.condition_rejected},
                      {"split_rejected", c.split_rejected},
                      {"unchanged", c.unchanged},
                      {"cycle_rejected", c.cycle_rejected},
                      {"duplicate_rejected", c.duplicate_rejected},
                      {"too_large_rejected", c.too_large_rejected},
                      {"too_costly_rejected", c.too_costly_rejected}}}};
  char line[256];
  std::snprintf(line, sizeof line,
                "taso: %zu expansions (%s), %zu candidates kept of %zu matches, %.3f s, best "
                "found at %.3f s (expansion %zu)",
                result.expansions, std::string(search::to_string(result.stop_reason)).c_str(),
                c.kept, c.matches, result.total_seconds, result.seconds_to_best,
                result.expansion_of_best);
  outcome.stop_description = line;
  outcome.graph = std::move(result.graph);
  return outcome;
}

}  // namespace saturate::driver
