#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/graph_loader.h"
#include "cli/option_checks.h"
#include "driver/file_checks.h"
#include "onnx/onnx_export.h"
#include "onnx/random_weights.h"
#include "support/error.h"

namespace saturate::cli {
namespace {

struct ExportOptions {
  std::string graph;
  std::string output;
  std::string external_data = "auto";
  bool reduced = false;
  std::vector<std::string> input_shapes;
  uint64_t seed = 0;
  double weight_scale = 1.0;
};

void export_graph(const ExportOptions& options) {
  driver::check_outputs(driver::names_a_file(options.graph)
                            ? std::vector<std::string>{options.graph}
                            : std::vector<std::string>{},
                        {{"-o", options.output}});
  if (std::filesystem::path(options.output).extension() != ".onnx") {
    throw Error("export: the output must be an .onnx file (got " + options.output + ")");
  }
  driver::LoadedModel loaded = load_graph_source(options.graph, options.reduced, options.input_shapes);
  // A bundled model or a text graph has no trained weights: random ones, seeded, so that the
  // exported model runs and a benchmark of it is reproducible.
  const bool random = loaded.onnx == nullptr;
  if (!random && options.weight_scale != 1.0) {
    throw Error("export: --weight-scale applies to random weights, and " + options.graph +
                " has its own");
  }
  auto random_weights = [&] {
    auto weights = onnx::random_weight_data(loaded.graph, options.seed);
    for (auto& [name, values] : weights) {
      for (float& value : values) value = static_cast<float>(value * options.weight_scale);
    }
    return weights;
  };
  const onnx::OnnxModel source =
      random ? onnx::make_export_source(loaded.graph, random_weights()) : *loaded.onnx;
  onnx::write_onnx(loaded.graph, source, options.output,
                   driver::external_data_mode(options.external_data));
  const std::string weights = random ? "random, seed " + std::to_string(options.seed)
                                     : std::string("from the source model");
  std::printf("wrote %s: %zu operators, %zu weights (%s)\n", options.output.c_str(),
              loaded.graph.num_operators(), loaded.graph.weights().size(), weights.c_str());
}

}  // namespace

void register_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  auto* command = app.add_subcommand(
      "export", "Write a graph as an ONNX model (bundled models get random, seeded weights)");
  command->add_option("MODEL", options->graph, "Bundled model name, .sxp or .onnx file")
      ->required();
  command->add_option("-o,--output", options->output, "The ONNX file to write")->required();
  command->add_flag("--reduced", options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, options->input_shapes);
  add_external_data_option(command, options->external_data);
  command->add_option("--seed", options->seed, "Seed of the random weights")
      ->check(kCount)
      ->capture_default_str();
  command
      ->add_option("--weight-scale", options->weight_scale,
                   "Multiply the random weights by S (a deep model without normalization, such as "
                   "bert, overflows float32 on random inputs at 1)")
      ->check(kPositiveNumber)
      ->capture_default_str();
  command->callback([options] { export_graph(*options); });
}

}  // namespace saturate::cli
