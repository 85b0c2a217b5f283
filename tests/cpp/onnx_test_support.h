#pragma once

// Shared by the onnx tests: random weights for a graph, and running an imported model.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/onnx_import.h"
#include "onnx/onnx_model.h"
#include "runtime/interpreter.h"
#include "support/error.h"

namespace saturate::onnx::onnx_testing {

// Float weights for every weight of the graph (random_feeds' values, rounded to float).
inline std::map<std::string, std::vector<float>> random_weights(const ir::Graph& graph,
                                                                uint64_t seed) {
  runtime::TensorMap feeds = runtime::random_feeds(graph, seed);
  std::map<std::string, std::vector<float>> weights;
  for (ir::NodeId id : graph.weights()) {
    const runtime::Tensor& t = feeds.at(graph.node(id).name());
    weights[graph.node(id).name()] = std::vector<float>(t.data.begin(), t.data.end());
  }
  return weights;
}

// Feeds for a graph: the given inputs, and weights from `weights`.
inline runtime::TensorMap feeds_with(const ir::Graph& graph,
                                     const std::map<std::string, std::vector<float>>& weights,
                                     const runtime::TensorMap& inputs) {
  runtime::TensorMap feeds;
  for (ir::NodeId id : graph.inputs()) {
    feeds[graph.node(id).name()] = inputs.at(graph.node(id).name());
  }
  for (ir::NodeId id : graph.weights()) {
    const ir::Node& node = graph.node(id);
    const auto& data = weights.at(node.name());
    feeds[node.name()] =
        runtime::Tensor(node.outputs[0].dims, std::vector<double>(data.begin(), data.end()));
  }
  return feeds;
}

// The one-line message import fails with (a test failure when it does not fail).
inline std::string import_error(std::string_view bytes, const ImportOptions& options = {}) {
  try {
    import_onnx_bytes(bytes, "m.onnx", options);
  } catch (const Error& error) {
    std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "expected an import error";
  return "";
}

}  // namespace saturate::onnx::onnx_testing
