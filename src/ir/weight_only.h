#pragma once

// Which values are known before any input arrives: weights, constants, and every operator all
// of whose inputs are (TASO's weight preprocessing). The cost model prices those at zero, the
// oneDNN executor computes them once when it compiles, and ONNX export folds them into
// initializers; one rule for all three.
#include <vector>

#include "ir/graph.h"

namespace saturate::ir {

// Indexed by NodeId. Inputs are never known; neither are opaque nodes (the reference
// interpreter cannot evaluate them, so nothing can fold them) nor operators without inputs.
std::vector<bool> weight_only_nodes(const Graph& graph);

}  // namespace saturate::ir
