#include "driver/model_loader.h"

#include <filesystem>

#include "driver/file_checks.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::driver {
namespace {

onnx::ImportOptions import_options(const ModelInput& input) {
  onnx::ImportOptions options;
  for (const auto& text : input.input_shapes) {
    auto [name, dims] = onnx::parse_input_shape(text);
    if (!options.input_shapes.emplace(name, dims).second) {
      throw Error("--input-shape gives " + name + " twice");
    }
  }
  options.external_data_dir = input.external_data_dir;
  return options;
}

LoadedModel loaded_onnx(onnx::OnnxModel model) {
  auto shared = std::make_shared<const onnx::OnnxModel>(std::move(model));
  return {shared->graph, "onnx", shared};
}

}  // namespace

bool ModelInput::reads_a_file() const {
  return !onnx_bytes && !graph && names_a_file(spec);
}

LoadedModel load_model(const ModelInput& input) {
  const bool in_memory = input.onnx_bytes || input.graph;
  if (input.reduced && (in_memory || input.reads_a_file())) {
    throw Error("--reduced applies to bundled models only, not to '" + input.spec + "'");
  }
  if (input.onnx_bytes) {
    return loaded_onnx(
        onnx::import_onnx_bytes(*input.onnx_bytes, input.spec, import_options(input)));
  }
  if (!input.input_shapes.empty() && !ends_with(input.spec, ".onnx")) {
    throw Error("--input-shape applies to ONNX models only, not to '" + input.spec + "'");
  }
  if (input.graph) return {*input.graph, "graph", nullptr};
  // A missing, unreadable or empty file, or a directory, is one clear line, before a parser
  // reads it as an empty graph.
  if (input.reads_a_file()) check_input_file(input.spec);
  if (ends_with(input.spec, ".onnx")) {
    return loaded_onnx(onnx::import_onnx(input.spec, import_options(input)));
  }
  if (ends_with(input.spec, ".sxp") || std::filesystem::exists(input.spec)) {
    return {ir::load_text_file(input.spec), "sxp", nullptr};
  }
  if (const models::ModelInfo* model = models::find_model(input.spec)) {
    return {model->build(models::ModelOptions{.reduced = input.reduced}), "bundled", nullptr};
  }
  std::string known = join(models::all_models(), ", ", [](const auto& m) { return m.name; });
  throw Error("'" + input.spec + "' is neither a bundled model (" + known +
              ") nor a graph file (.sxp, .onnx)");
}

onnx::ExternalData external_data_mode(const std::string& mode) {
  if (mode == "on") return onnx::ExternalData::On;
  if (mode == "off") return onnx::ExternalData::Off;
  return onnx::ExternalData::Auto;
}

}  // namespace saturate::driver
