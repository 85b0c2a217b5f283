#include "cli/graph_loader.h"

#include <filesystem>

#include "ir/text_format.h"
#include "models/model_registry.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {

ir::Graph load_graph(const std::string& spec, bool reduced) {
  if (ends_with(spec, ".sxp") || std::filesystem::exists(spec)) {
    if (reduced) throw Error("--reduced applies to bundled models only, not to '" + spec + "'");
    return ir::load_text_file(spec);
  }
  if (const models::ModelInfo* model = models::find_model(spec)) {
    return model->build(models::ModelOptions{.reduced = reduced});
  }
  std::string known = join(models::all_models(), ", ", [](const auto& m) { return m.name; });
  throw Error("'" + spec + "' is neither a bundled model (" + known + ") nor a graph file (.sxp)");
}

}  // namespace saturate::cli
