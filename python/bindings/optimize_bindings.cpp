// saturate.optimize of a Graph: driver::run_pipeline on a graph in memory, as `saturate
// optimize` runs it on a .sxp file.
#include <pybind11/stl.h>

#include "bindings.h"

namespace py = pybind11;

namespace saturate::python {

void bind_optimize(py::module_& module) {
  module.def(
      "optimize",
      [](const ir::Graph& graph, const py::kwargs& kwargs) {
        driver::ModelInput input;
        input.spec = graph.name();
        input.graph = graph;
        const driver::PipelineOptions options = pipeline_options(kwargs, input);
        driver::PipelineResult result;
        {
          py::gil_scoped_release release;  // measuring, exploration and ILP can take a while
          result = driver::run_pipeline(input, options);
        }
        return py::make_tuple(std::move(result.optimized), report_dict(result));
      },
      py::arg("graph"),
      "Optimizes a graph as `saturate optimize` does (same options, as keyword arguments: "
      "rules, pypm, node_limit, iter_limit, k_multi, extract, ilp_time_limit, time_limit, cost, "
      "verify, ...; the defaults are the command's). Returns (optimized graph, report dict).");
}

}  // namespace saturate::python
