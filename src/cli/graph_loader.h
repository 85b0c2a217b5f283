#pragma once

// The MODEL argument of the commands that read a graph (driver/model_loader.h resolves it) and
// the options that go with it.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "driver/model_loader.h"
#include "ir/graph.h"

namespace saturate::cli {

// A bundled model's name ("bert"), a graph in text form (".sxp") or an ONNX model (".onnx");
// `input_shapes` are `--input-shape NAME=1,128` texts, for ONNX inputs with dynamic dims.
// Throws saturate::Error listing the known models otherwise.
ir::Graph load_graph(const std::string& spec, bool reduced,
                     const std::vector<std::string>& input_shapes = {});
driver::LoadedModel load_graph_source(const std::string& spec, bool reduced,
                                      const std::vector<std::string>& input_shapes = {});

// Adds `--external-data auto|on|off` to a command that writes ONNX.
void add_external_data_option(CLI::App* command, std::string& mode);

// Adds `--input-shape NAME=D1,D2,...` (repeatable) to a command that reads a graph.
void add_input_shape_option(CLI::App* command, std::vector<std::string>& input_shapes);

}  // namespace saturate::cli
