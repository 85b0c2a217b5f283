// Deterministic random feeds for a graph's leaves.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "runtime/index_math.h"
#include "runtime/interpreter.h"
#include "support/error.h"

namespace saturate::runtime {
namespace {

// Uniform in [low, high), built from the engine's raw bits: std::uniform_real_distribution's
// output differs between standard libraries, and feeds must be the same everywhere.
double uniform(std::mt19937_64& engine, double low, double high) {
  const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;  // [0, 1), 53 bits
  return low + (high - low) * unit;
}

// Typical fan-in of a weight: conv kernels (O, I, kh, kw) see I*kh*kw inputs per output;
// matmul weights (..., K, N) see K.
double fan_in(const ir::Dims& dims) {
  if (dims.size() == 4) return static_cast<double>(detail::product(dims, 1, 4));
  if (dims.size() == 2 || dims.size() == 3) return static_cast<double>(dims[dims.size() - 2]);
  return 1.0;
}

// Weights that must stay positive and near 1: batchnorm variances (so the square root is
// defined) and the scales of batchnorm and the (skip) layer and RMS norms (so activations keep
// their size).
std::set<ir::NodeId> positive_weights(const ir::Graph& graph) {
  std::set<ir::NodeId> ids;
  for (const ir::Node& node : graph.nodes()) {
    if (node.op == ir::OpKind::BatchNorm) {
      ids.insert(node.inputs[1].node);
      ids.insert(node.inputs[4].node);
    } else if (node.op == ir::OpKind::LayerNorm || node.op == ir::OpKind::RMSNorm) {
      ids.insert(node.inputs[1].node);
    } else if (node.op == ir::OpKind::SkipLayerNorm || node.op == ir::OpKind::SkipRMSNorm) {
      ids.insert(node.inputs[2].node);
    }
  }
  return ids;
}

}  // namespace

TensorMap random_feeds(const ir::Graph& graph, uint64_t seed, const TensorMap& given) {
  std::mt19937_64 engine(seed);
  const std::set<ir::NodeId> positive = positive_weights(graph);
  TensorMap feeds = given;
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (!ir::op_info(node.op).is_leaf() || feeds.contains(node.name())) continue;
    const ir::TensorType& type = node.outputs.front();
    if (ir::has_symbolic(type.dims)) {
      throw Error("random_feeds: " + std::string(ir::to_string(node.op)) + " '" + node.name() +
                  "' has the symbolic shape " + ir::to_string(type.dims) +
                  "; bind the symbols to sizes first (a shape profile, e.g. "
                  "batch=1,sequence=128)");
    }
    Tensor value(type.dims);
    if (node.op == ir::OpKind::Constant) {
      std::fill(value.data.begin(), value.data.end(), node.attrs.get_float("value"));
    } else {
      double low = -1.0;
      double high = 1.0;
      if (node.op == ir::OpKind::Weight && positive.contains(id)) {
        low = 0.5;
        high = 1.5;
      } else if (node.op == ir::OpKind::Weight) {
        high = std::sqrt(3.0 / fan_in(type.dims));  // variance 1 / fan_in
        low = -high;
      }
      for (double& v : value.data) v = uniform(engine, low, high);
    }
    // Values of float32 leaves are float32 numbers, so F32 and F64 runs see identical inputs.
    if (type.dtype == ir::DType::F32) {
      for (double& v : value.data) v = static_cast<float>(v);
    } else if (!ir::is_floating(type.dtype)) {
      // Integer and bool leaves (ids, masks) get 0 or 1: valid as an index and as a mask.
      for (double& v : value.data) v = v < 0 ? 0.0 : 1.0;
    }
    feeds.emplace(node.name(), std::move(value));
  }
  return feeds;
}

}  // namespace saturate::runtime
