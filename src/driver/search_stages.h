#pragma once

// The pipeline's search step: equality saturation and extraction, or TASO's backtracking
// search as the baseline, each starting the report with what it found.
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cost/cost_model.h"
#include "driver/deployment_target.h"
#include "driver/optimize_pipeline.h"
#include "eqsat/rule_file.h"
#include "ir/graph.h"
#include "pm/core.h"
#include "support/deadline.h"

namespace saturate::driver {

struct SearchOutcome {
  ir::Graph graph;  // the graph chosen (the input when nothing cheaper was found)
  double original_cost = 0;
  double optimized_cost = 0;
  bool kept_original = false;
  // The search's own statistics (the pipeline writes the model, costs and operator counts).
  nlohmann::ordered_json report;
  // "exploration: ..." lines the CLI prints after the table.
  std::string stop_description;

  // NaN (unknown) when the costs are: a deadline stopped the search before pricing.
  double speedup_percent() const {
    if (std::isnan(original_cost) || std::isnan(optimized_cost))
      return original_cost + optimized_cost;
    return optimized_cost > 0 ? 100.0 * (original_cost / optimized_cost - 1.0) : 0.0;
  }
};

// Equality saturation with `rules`, the PyPM files of `options` and the target's `fusions`,
// ending by `deadline`; writes the e-graph files to the given temporary paths when asked.
SearchOutcome run_equality_saturation(const ir::Graph& graph, const eqsat::RuleSet& rules,
                                      const FusionLibraries& fusions, const cost::CostModel& model,
                                      const PipelineOptions& options, const Deadline& deadline,
                                      const std::string& egraph_json_path,
                                      const std::string& egraph_dot_path);

// TASO's search over the same rules and cost model, ending by `deadline`.
SearchOutcome run_taso_baseline(const ir::Graph& graph, const eqsat::RuleSet& rules,
                                const cost::CostModel& model, const PipelineOptions& options,
                                const Deadline& deadline);

}  // namespace saturate::driver
