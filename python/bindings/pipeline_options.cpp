// The keyword arguments of saturate.optimize, mapped onto driver::PipelineOptions: the
// defaults are the pipeline's, declared once in driver/optimize_pipeline.h.
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bindings.h"
#include "driver/json_output.h"

namespace py = pybind11;

namespace saturate::python {
namespace {

template <typename T>
std::function<void(driver::PipelineOptions&, const py::handle&)> set(
    T driver::PipelineOptions::*field) {
  return [field](driver::PipelineOptions& options, const py::handle& value) {
    options.*field = value.cast<T>();
  };
}

using Setter = std::function<void(driver::PipelineOptions&, const py::handle&)>;

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = {
      {"rules", set(&driver::PipelineOptions::rule_files)},
      {"tensat_multi", set(&driver::PipelineOptions::tensat_multi_files)},
      {"pypm", set(&driver::PipelineOptions::pypm_files)},
      {"no_rules", set(&driver::PipelineOptions::no_rules)},
      {"target", set(&driver::PipelineOptions::target)},
      {"fusions", set(&driver::PipelineOptions::fusions)},
      {"profiles", set(&driver::PipelineOptions::profiles)},
      {"node_limit",
       [](driver::PipelineOptions& options, const py::handle& value) {
         options.node_limit = value.cast<size_t>();
         options.node_limit_given = true;  // as --node-limit: replaces the node budget
       }},
      {"no_budget", set(&driver::PipelineOptions::no_budget)},
      {"iter_limit", set(&driver::PipelineOptions::iteration_limit)},
      {"k_multi", set(&driver::PipelineOptions::k_multi)},
      {"multi_same_class", set(&driver::PipelineOptions::multi_same_class)},
      {"time_limit", set(&driver::PipelineOptions::time_limit)},
      {"cycle_filter", set(&driver::PipelineOptions::cycle_filter)},
      {"extract", set(&driver::PipelineOptions::extractor)},
      {"ilp_cycles", set(&driver::PipelineOptions::ilp_cycles)},
      {"ilp_time_limit", set(&driver::PipelineOptions::ilp_time_limit)},
      {"ilp_solver", set(&driver::PipelineOptions::ilp_solver)},
      {"backoff", set(&driver::PipelineOptions::backoff)},
      {"search", set(&driver::PipelineOptions::search)},
      {"alpha", set(&driver::PipelineOptions::alpha)},
      {"budget", set(&driver::PipelineOptions::budget)},
      {"latency_runs", set(&driver::PipelineOptions::latency_runs)},
      {"latency_budget", set(&driver::PipelineOptions::latency_budget)},
      {"session_guards", set(&driver::PipelineOptions::session_guards)},
      {"verify", set(&driver::PipelineOptions::verify)},
      {"keep_unverified", set(&driver::PipelineOptions::keep_unverified)},
      {"precision", set(&driver::PipelineOptions::precision)},
      {"keep_io_types", set(&driver::PipelineOptions::keep_io_types)},
      {"keep_fp32", set(&driver::PipelineOptions::keep_fp32)},
      {"precision_budget", set(&driver::PipelineOptions::precision_budget)},
      {"cost", [](driver::PipelineOptions& options,
                  const py::handle& value) { options.cost.kind = value.cast<std::string>(); }},
      {"cost_cache",
       [](driver::PipelineOptions& options, const py::handle& value) {
         options.cost.cache_path = value.cast<std::string>();
       }},
      {"cache_busy_costs",
       [](driver::PipelineOptions& options, const py::handle& value) {
         options.cost.cache_busy_costs = value.cast<bool>();
       }},
      {"threads", [](driver::PipelineOptions& options,
                     const py::handle& value) { options.cost.threads = value.cast<int>(); }},
  };
  return table;
}

}  // namespace

driver::PipelineOptions pipeline_options(const py::kwargs& given, driver::ModelInput& input) {
  driver::PipelineOptions options;
  for (const auto& [key, value] : given) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;  // None: the default
    if (name == "input_shapes") {
      for (const auto& [input_name, dims] :
           value.cast<std::map<std::string, std::vector<int64_t>>>()) {
        std::string text = input_name + "=";
        for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
        input.input_shapes.push_back(text);
      }
      continue;
    }
    auto setter = setters().find(name);
    if (setter == setters().end()) {
      throw py::type_error("optimize() got an unexpected keyword argument '" + name + "'");
    }
    try {
      setter->second(options, value);
    } catch (const py::cast_error&) {
      throw py::type_error("optimize(): " + name + " has the wrong type (" +
                           std::string(py::str(py::type::of(value))) + ")");
    }
  }
  return options;
}

py::dict report_dict(const driver::PipelineResult& result) {
  return py::module_::import("json").attr("loads")(driver::dump_json(result.to_json()));
}

}  // namespace saturate::python
