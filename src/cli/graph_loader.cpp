#include "cli/graph_loader.h"

#include <filesystem>

#include "ir/text_format.h"
#include "models/model_registry.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {

ir::Graph load_graph(const std::string& spec, bool reduced) {
  return load_graph_source(spec, reduced).graph;
}

LoadedGraph load_graph_source(const std::string& spec, bool reduced) {
  if (ends_with(spec, ".onnx")) {
    if (reduced) throw Error("--reduced applies to bundled models only, not to '" + spec + "'");
    auto model = std::make_shared<const onnx::OnnxModel>(onnx::import_onnx(spec));
    return {model->graph, "onnx", model};
  }
  if (ends_with(spec, ".sxp") || std::filesystem::exists(spec)) {
    if (reduced) throw Error("--reduced applies to bundled models only, not to '" + spec + "'");
    return {ir::load_text_file(spec), "sxp", nullptr};
  }
  if (const models::ModelInfo* model = models::find_model(spec)) {
    return {model->build(models::ModelOptions{.reduced = reduced}), "bundled", nullptr};
  }
  std::string known = join(models::all_models(), ", ", [](const auto& m) { return m.name; });
  throw Error("'" + spec + "' is neither a bundled model (" + known +
              ") nor a graph file (.sxp, .onnx)");
}

}  // namespace saturate::cli
