#include "driver/deployment_target.h"

#include <filesystem>

#include "driver/name_checks.h"
#include "ir/op_registry.h"
#include "pm/egraph_rules.h"
#include "pm/format_reader.h"
#include "support/error.h"
#include "support/shipped_files.h"

namespace saturate::driver {

std::string default_target(bool onnx_input) {
  return onnx_input ? kTargetOnnxruntime : kTargetOnnx;
}

std::string onnxruntime_fusions_path() {
  return (std::filesystem::path(shipped_pypm_dir()) / "onnxruntime.pmb").string();
}

std::shared_ptr<const pm::Module> target_fusions(const std::string& target) {
  if (target == kTargetOnnx) return nullptr;
  if (target != kTargetOnnxruntime) {
    throw Error("unknown target '" + target + "' (onnxruntime or onnx)");
  }
  const std::string path = onnxruntime_fusions_path();
  if (!std::filesystem::is_regular_file(path)) {
    throw Error("the ONNX Runtime fusion library '" + path +
                "' is missing (the build compiles it from rules/pypm/onnxruntime.py; set "
                "SATURATE_PYPM_DIR, or use --target onnx)");
  }
  auto module = std::make_shared<const pm::Module>(pm::load_pmb(path));
  check_rule_names(*module, path);
  return module;
}

std::map<std::string, size_t> contrib_operator_counts(const ir::Graph& graph) {
  std::map<std::string, size_t> counts;
  for (ir::OpKind op : {ir::OpKind::MultiHeadAttention}) {
    if (size_t n = graph.nodes_of(op).size(); n > 0) counts[std::string(ir::to_string(op))] = n;
  }
  return counts;
}

void add_pypm_rules(eqsat::OptimizeOptions& settings, std::shared_ptr<const pm::Module> module) {
  settings.extra_rules.push_back(
      [module](eqsat::CycleFilter* filter) { return pm::compile_egraph_rules(module, filter); });
}

}  // namespace saturate::driver
