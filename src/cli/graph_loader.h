#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_model.h"

namespace saturate::cli {

// Resolves what a user names on the command line: a bundled model name ("bert"), a path to
// a graph in text form (".sxp") or an ONNX model (".onnx"). Throws saturate::Error listing the
// known models otherwise.
// `input_shapes` are `--input-shape NAME=1,128` texts, for ONNX inputs with dynamic dims.
ir::Graph load_graph(const std::string& spec, bool reduced,
                     const std::vector<std::string>& input_shapes = {});

// What load_graph_source read: the graph, where it came from, and for an ONNX file the model
// that export needs (weights, opsets, interface).
struct LoadedGraph {
  ir::Graph graph;
  std::string format;                           // "onnx", "sxp" or "bundled"
  std::shared_ptr<const onnx::OnnxModel> onnx;  // set for ONNX files only
};
LoadedGraph load_graph_source(const std::string& spec, bool reduced,
                              const std::vector<std::string>& input_shapes = {});

// Adds `--external-data auto|on|off` to a command that writes ONNX; returns the mode.
void add_external_data_option(CLI::App* command, std::string& mode);
onnx::ExternalData external_data_mode(const std::string& mode);

// Adds `--input-shape NAME=D1,D2,...` (repeatable) to a command that reads a graph.
void add_input_shape_option(CLI::App* command, std::vector<std::string>& input_shapes);

}  // namespace saturate::cli
