#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace saturate::onnx {

// Seeded random data for every weight of the graph (runtime::random_feeds: scaled by
// 1/sqrt(fan-in), batchnorm variances positive), by weight name: what exporting a bundled model
// or a one-operator timing model needs, since neither has trained weights.
std::map<std::string, std::vector<float>> random_weight_data(const ir::Graph& graph, uint64_t seed);

}  // namespace saturate::onnx
