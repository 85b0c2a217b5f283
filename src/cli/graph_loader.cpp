#include "cli/graph_loader.h"

#include <filesystem>

#include "cli/file_checks.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {

ir::Graph load_graph(const std::string& spec, bool reduced,
                     const std::vector<std::string>& input_shapes) {
  return load_graph_source(spec, reduced, input_shapes).graph;
}

LoadedGraph load_graph_source(const std::string& spec, bool reduced,
                              const std::vector<std::string>& input_shapes) {
  // A missing, unreadable or empty file, or a directory, is one clear line, before a parser
  // reads it as an empty graph.
  if (names_a_file(spec)) check_input_file(spec);
  if (ends_with(spec, ".onnx")) {
    if (reduced) throw Error("--reduced applies to bundled models only, not to '" + spec + "'");
    onnx::ImportOptions options;
    for (const auto& text : input_shapes) {
      auto [name, dims] = onnx::parse_input_shape(text);
      if (!options.input_shapes.emplace(name, dims).second) {
        throw Error("--input-shape gives " + name + " twice");
      }
    }
    auto model = std::make_shared<const onnx::OnnxModel>(onnx::import_onnx(spec, options));
    return {model->graph, "onnx", model};
  }
  if (!input_shapes.empty()) {
    throw Error("--input-shape applies to ONNX models only, not to '" + spec + "'");
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

void add_external_data_option(CLI::App* command, std::string& mode) {
  command
      ->add_option("--external-data", mode,
                   "Weights in a data file beside the ONNX output (OUT.onnx.data): auto (when "
                   "the input had external data or the weights pass 2 GB), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
}

onnx::ExternalData external_data_mode(const std::string& mode) {
  if (mode == "on") return onnx::ExternalData::On;
  if (mode == "off") return onnx::ExternalData::Off;
  return onnx::ExternalData::Auto;
}

void add_input_shape_option(CLI::App* command, std::vector<std::string>& input_shapes) {
  command->add_option("--input-shape", input_shapes,
                      "Pin an ONNX input's dimensions, NAME=D1,D2,... (repeatable), e.g. "
                      "input_ids=1,128; needed for inputs with dynamic dimensions");
}

}  // namespace saturate::cli
