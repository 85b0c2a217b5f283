#pragma once

// What a user names as a model, resolved to a graph: a bundled model's name ("bert"), a graph
// in text form (".sxp"), an ONNX model (".onnx" path or bytes in memory), or a graph given in
// memory.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_model.h"

namespace saturate::driver {

struct ModelInput {
  std::string spec;      // the name or path; for bytes or a graph, how reports name it
  bool reduced = false;  // a bundled model's reduced-size variant
  std::vector<std::string> input_shapes;  // "NAME=D1,D2,..." pins of an ONNX input's dims
  std::optional<std::string> onnx_bytes;  // an ONNX model in memory
  std::string external_data_dir;          // where onnx_bytes' external data lies
  std::optional<ir::Graph> graph;         // a graph in memory

  // Whether `spec` is a file the model is read from (not a bundled name or an in-memory model).
  bool reads_a_file() const;
};

struct LoadedModel {
  ir::Graph graph;
  std::string format;                           // "onnx", "sxp", "bundled" or "graph"
  std::shared_ptr<const onnx::OnnxModel> onnx;  // an ONNX input's model (weights, interface)
};

// Throws saturate::Error for a missing or unreadable file, a malformed model, an option that
// does not apply (--reduced for a file, --input-shape for a non-ONNX input) or an unknown name
// (listing the bundled models).
LoadedModel load_model(const ModelInput& input);

// `auto|on|off` (the --external-data option's values).
onnx::ExternalData external_data_mode(const std::string& mode);

}  // namespace saturate::driver
