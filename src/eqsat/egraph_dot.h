#pragma once

#include <string>

#include "eqsat/tensor_egraph.h"

namespace saturate::eqsat {

// Graphviz DOT of the classes reachable from `root`: one cluster per e-class (labelled with its
// type), one box per visible e-node with its attributes folded into the label, an edge from each
// node to each tensor child class. Filtered nodes are drawn dashed. Readable up to a few hundred
// classes; larger e-graphs are better inspected with `--egraph-json`.
std::string write_egraph_dot(const TensorEGraph& egraph, EClassId root);

}  // namespace saturate::eqsat
