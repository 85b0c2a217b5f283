// PyPM from Python, in process: apply a compiled module (the bytes `saturate.pypm.serialize()`
// returns, or a .pmb path) to a graph, or explain a node.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "pm/explain.h"
#include "pm/format_reader.h"
#include "pm/rewriter.h"
#include "bindings.h"

namespace py = pybind11;

namespace saturate::python {
namespace {

// bytes are a module; str is a path to one.
pm::Module module_from(const py::object& patterns) {
  if (py::isinstance<py::bytes>(patterns)) return pm::read_pmb(patterns.cast<std::string>());
  return pm::load_pmb(py::str(patterns).cast<std::string>());
}

}  // namespace

void bind_pm(py::module_& module) {
  module.def(
      "apply_rules",
      [](const ir::Graph& graph, const py::object& patterns, size_t max_passes) {
        pm::Module rules = module_from(patterns);
        pm::RewriteOptions options;
        options.max_passes = max_passes;
        pm::RewriteResult result;
        {
          py::gil_scoped_release release;
          result = pm::rewrite(graph, rules, options);
        }
        py::dict report;
        py::dict applications;
        for (const pm::RuleStatistics& rule : result.rules)
          applications[py::str(rule.name)] = rule.applications;
        report["applications"] = applications;
        report["passes"] = result.passes;
        report["hit_iteration_cap"] = result.hit_iteration_cap;
        report["seconds"] = result.seconds;
        return py::make_tuple(std::move(result.graph), report);
      },
      py::arg("graph"), py::arg("patterns"), py::arg("max_passes") = 100,
      "Rewrites a copy of the graph greedily with a PyPM module (bytes or .pmb path) until "
      "nothing matches. Returns (graph, report).");
  module.def(
      "explain",
      [](const ir::Graph& graph, const py::object& patterns, const std::string& value) {
        return pm::explain(graph, module_from(patterns), value);
      },
      py::arg("graph"), py::arg("patterns"), py::arg("value"),
      "Why each pattern does or does not match at the named value, as a text tree.");
}

}  // namespace saturate::python
