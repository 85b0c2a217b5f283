#include "cli/graph_loader.h"

#include <filesystem>

#include "driver/file_checks.h"
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

driver::LoadedModel load_graph_source(const std::string& spec, bool reduced,
                                      const std::vector<std::string>& input_shapes) {
  driver::ModelInput input;
  input.spec = spec;
  input.reduced = reduced;
  input.input_shapes = input_shapes;
  return driver::load_model(input);
}

void add_external_data_option(CLI::App* command, std::string& mode) {
  command
      ->add_option("--external-data", mode,
                   "Weights in a data file beside the ONNX output (OUT.onnx.data): auto (when "
                   "the input had external data or the weights pass 2 GB), on or off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
}

void add_input_shape_option(CLI::App* command, std::vector<std::string>& input_shapes) {
  command->add_option("--input-shape", input_shapes,
                      "Pin an ONNX input's dimensions, NAME=D1,D2,... (repeatable), e.g. "
                      "input_ids=1,128; needed for inputs with dynamic dimensions");
}

}  // namespace saturate::cli
