// saturate.optimize for ONNX models: the bytes of a ModelProto in, the optimized model's bytes
// and a report out (python/saturate/onnx_api.py wraps this into onnx.ModelProto).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/cost_model_options.h"
#include "cli/deployment_target.h"
#include "cli/rules_loader.h"
#include "eqsat/optimizer.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace saturate::python {

void bind_onnx(py::module_& module) {
  module.def(
      "optimize_onnx",
      [](const py::bytes& model_bytes, const std::string& source, const std::string& cost,
         const std::string& cost_cache, const std::vector<std::string>& rules, size_t node_limit,
         size_t iter_limit, size_t k_multi, const std::string& extract, double ilp_time_limit,
         double time_limit, int threads,
         const std::map<std::string, std::vector<int64_t>>& input_shapes,
         const std::string& external_data_dir, const std::string& target) {
        const std::string bytes = model_bytes;
        onnx::ImportOptions import_options;
        for (const auto& [name, dims] : input_shapes) import_options.input_shapes[name] = dims;
        import_options.external_data_dir = external_data_dir;
        onnx::OnnxModel model = onnx::import_onnx_bytes(bytes, source, import_options);
        eqsat::OptimizeOptions options =
            optimize_settings(node_limit, iter_limit, k_multi, extract, ilp_time_limit, time_limit);
        cli::CostModelOptions cost_options;
        cost_options.kind = cost;
        cost_options.cache_path = cost_cache;
        cost_options.threads = threads;
        eqsat::RuleSet rule_set = cli::load_rule_sets(rules, {});
        std::shared_ptr<const pm::Module> fusions = cli::target_fusions(target);
        if (fusions) cli::add_pypm_rules(options, fusions);
        std::string optimized_bytes;
        nlohmann::ordered_json cost_report;
        eqsat::OptimizeResult result;
        {
          py::gil_scoped_release release;  // measuring, exploration and ILP can take a while
          std::unique_ptr<cost::CostModel> cost_model = cli::make_cost_model(cost_options);
          result = eqsat::optimize(model.graph, rule_set, *cost_model, options);
          optimized_bytes = onnx::export_onnx(result.graph, model);
          cli::add_cost_model_report(*cost_model, cost_report);
        }
        py::dict report;
        report["original_cost"] = result.original_cost;
        report["optimized_cost"] = result.optimized_cost;
        report["speedup_percent"] = result.speedup_percent();
        report["original_ops"] = model.graph.num_operators();
        report["optimized_ops"] = result.graph.num_operators();
        report["opaque_nodes"] = model.graph.nodes_of(ir::OpKind::Opaque).size();
        report["folded_nodes"] = model.folded_nodes;
        report["egraph_nodes"] = result.exploration.egraph_nodes;
        report["iterations"] = result.exploration.iterations;
        report["explore_seconds"] = result.explore_seconds;
        report["extract_seconds"] = result.extract_seconds;
        report["ilp_optimal"] = result.extraction.proven_optimal;
        report["ilp_solver"] = result.extraction.solver;
        report["target"] = target;
        py::dict fused;
        for (const auto& [name, count] : cli::contrib_operator_counts(result.graph)) {
          fused[py::str(name)] = count;
        }
        report["fused_operators"] = fused;
        for (const auto& [key, value] : cost_report.items()) {
          if (value.is_string()) {
            report[py::str(key)] = value.get<std::string>();
          } else if (value.is_number_integer()) {
            report[py::str(key)] = value.get<int64_t>();
          } else if (value.is_number()) {
            report[py::str(key)] = value.get<double>();
          } else {
            report[py::str(key)] = py::none();
          }
        }
        return py::make_tuple(py::bytes(optimized_bytes), report);
      },
      py::arg("model"), py::arg("source") = "<bytes>", py::arg("cost") = "analytic",
      py::arg("cost_cache") = "", py::arg("rules") = std::vector<std::string>{},
      py::arg("node_limit") = 50'000, py::arg("iter_limit") = 15, py::arg("k_multi") = 1,
      py::arg("extract") = "ilp", py::arg("ilp_time_limit") = 600.0, py::arg("time_limit") = 3600.0,
      py::arg("threads") = 1,
      py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
      py::arg("external_data_dir") = "", py::arg("target") = cli::kTargetOnnxruntime,
      "Optimizes a serialized ONNX model: import, equality saturation with the rule files given "
      "(the shipped library when empty), extraction under the cost model, export. Returns "
      "(optimized model bytes, report dict).");
}

}  // namespace saturate::python
