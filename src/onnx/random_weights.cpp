#include "onnx/random_weights.h"

#include "runtime/interpreter.h"

namespace saturate::onnx {

std::map<std::string, std::vector<float>> random_weight_data(const ir::Graph& graph,
                                                             uint64_t seed) {
  const runtime::TensorMap feeds = runtime::random_feeds(graph, seed);
  std::map<std::string, std::vector<float>> weights;
  for (ir::NodeId id : graph.weights()) {
    const runtime::Tensor& tensor = feeds.at(graph.node(id).name());
    weights[graph.node(id).name()] = std::vector<float>(tensor.data.begin(), tensor.data.end());
  }
  return weights;
}

}  // namespace saturate::onnx
