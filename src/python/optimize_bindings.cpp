// saturate.optimize from Python: the same equality-saturation path as `saturate optimize`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "cli/rules_loader.h"
#include "cost/analytic_cost_model.h"
#include "eqsat/optimizer.h"
#include "pm/egraph_rules.h"
#include "pm/format_reader.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace saturate::python {

eqsat::OptimizeOptions optimize_settings(size_t node_limit, size_t iter_limit, size_t k_multi,
                                         const std::string& extract, double ilp_time_limit,
                                         double time_limit) {
  eqsat::OptimizeOptions options;
  options.node_limit = node_limit;
  options.iteration_limit = iter_limit;
  options.multi_pattern_iterations = k_multi;
  options.extractor = extract == "greedy" ? "greedy-dag" : extract;
  options.ilp_time_limit_seconds = ilp_time_limit;
  options.time_limit_seconds = time_limit;
  return options;
}

void bind_optimize(py::module_& module) {
  module.def(
      "optimize",
      [](const ir::Graph& graph, const std::vector<std::string>& rules, size_t node_limit,
         size_t iter_limit, size_t k_multi, const std::string& extract, double ilp_time_limit,
         double time_limit, const std::vector<std::string>& pypm) {
        eqsat::OptimizeOptions options =
            optimize_settings(node_limit, iter_limit, k_multi, extract, ilp_time_limit, time_limit);
        for (const std::string& path : pypm) {
          auto patterns = std::make_shared<const pm::Module>(pm::load_pmb(path));
          options.extra_rules.push_back([patterns](eqsat::CycleFilter* filter) {
            return pm::compile_egraph_rules(patterns, filter);
          });
        }
        eqsat::RuleSet rule_set = cli::load_rule_sets(rules, {});
        eqsat::OptimizeResult result;
        {
          py::gil_scoped_release release;  // exploration and ILP can take a while
          result = eqsat::optimize(graph, rule_set, cost::AnalyticCostModel(), options);
        }
        py::dict report;
        report["original_cost"] = result.original_cost;
        report["optimized_cost"] = result.optimized_cost;
        report["speedup_percent"] = result.speedup_percent();
        report["kept_original"] = result.kept_original;
        report["egraph_nodes"] = result.exploration.egraph_nodes;
        report["egraph_classes"] = result.exploration.egraph_classes;
        report["iterations"] = result.exploration.iterations;
        report["stop_reason"] =
            result.exploration.stop_reason ? result.exploration.stop_reason->to_string() : "";
        report["explore_seconds"] = result.explore_seconds;
        report["extract_seconds"] = result.extract_seconds;
        report["ilp_optimal"] = result.extraction.proven_optimal;
        report["ilp_solver"] = result.extraction.solver;
        return py::make_tuple(std::move(result.graph), report);
      },
      py::arg("graph"), py::arg("rules") = std::vector<std::string>{},
      py::arg("node_limit") = 50'000, py::arg("iter_limit") = 15, py::arg("k_multi") = 1,
      py::arg("extract") = "ilp", py::arg("ilp_time_limit") = 600.0, py::arg("time_limit") = 3600.0,
      py::arg("pypm") = std::vector<std::string>{},
      "Equality saturation with the rule files given (the shipped library when empty), then "
      "extraction; `pypm` adds the rules of .pmb files, non-destructively. Returns (optimized "
      "graph, report dict).");
}

}  // namespace saturate::python
