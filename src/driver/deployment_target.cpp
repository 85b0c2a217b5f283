#include "driver/deployment_target.h"

#include <algorithm>
#include <filesystem>
#include <set>

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

std::vector<std::string> onnxruntime_fusion_paths() {
  const std::filesystem::path dir(shipped_pypm_dir());
  return {(dir / "onnxruntime.pmb").string(), (dir / "onnxruntime_matmul.pmb").string()};
}

namespace {

bool uses_only(const pm::Term& term, const std::set<ir::OpKind>& allowed) {
  if (term.tag != pm::Term::Tag::App) return true;
  const bool contrib =
      std::ranges::find(kContribOperators, term.head.op) != std::end(kContribOperators);
  if (term.head.tag == pm::Head::Tag::Name && contrib && !allowed.contains(term.head.op)) {
    return false;
  }
  return std::ranges::all_of(term.args,
                             [&](const pm::Term& arg) { return uses_only(arg, allowed); });
}

std::set<ir::OpKind> allowed_operators(const std::vector<std::string>& names) {
  std::set<ir::OpKind> allowed;
  if (names.empty()) allowed.insert(std::begin(kContribOperators), std::end(kContribOperators));
  for (const std::string& name : names) {
    if (name == "none") continue;
    auto kind = ir::find_op(name);
    if (!kind || std::ranges::find(kContribOperators, *kind) == std::end(kContribOperators)) {
      std::string known;
      for (ir::OpKind op : kContribOperators) known += std::string(ir::to_string(op)) + ", ";
      throw Error("unknown fusion '" + name + "' (" + known + "or none)");
    }
    allowed.insert(*kind);
  }
  return allowed;
}

}  // namespace

FusionLibraries target_fusions(const std::string& target, const std::vector<std::string>& allowed) {
  const std::set<ir::OpKind> operators = allowed_operators(allowed);
  if (target == kTargetOnnx) return {};
  if (target != kTargetOnnxruntime) {
    throw Error("unknown target '" + target + "' (onnxruntime or onnx)");
  }
  FusionLibraries libraries;
  for (const std::string& path : onnxruntime_fusion_paths()) {
    if (!std::filesystem::is_regular_file(path)) {
      throw Error("the ONNX Runtime fusion library '" + path +
                  "' is missing (the build compiles it from rules/pypm/" +
                  std::filesystem::path(path).stem().string() +
                  ".py; set SATURATE_PYPM_DIR, or use --target onnx)");
    }
    pm::Module module = pm::load_pmb(path);
    std::erase_if(module.rules, [&](const pm::Rule& rule) {
      return !uses_only(rule.replacement, operators) ||
             !std::ranges::all_of(rule.also, [&](const pm::FurtherReplacement& further) {
               return uses_only(further.term, operators);
             });
    });
    check_rule_names(module, path);
    libraries.push_back(std::make_shared<const pm::Module>(std::move(module)));
  }
  return libraries;
}

std::map<std::string, size_t> fused_operator_counts(const ir::Graph& original,
                                                    const ir::Graph& optimized) {
  std::map<std::string, size_t> counts;
  for (ir::OpKind op : kContribOperators) {
    size_t before = original.nodes_of(op).size();
    size_t after = optimized.nodes_of(op).size();
    if (after > before) counts[std::string(ir::to_string(op))] = after - before;
  }
  return counts;
}

void add_pypm_rules(eqsat::OptimizeOptions& settings, std::shared_ptr<const pm::Module> module) {
  settings.extra_rules.push_back(
      [module](eqsat::CycleFilter* filter) { return pm::compile_egraph_rules(module, filter); });
}

}  // namespace saturate::driver
