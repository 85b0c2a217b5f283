#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "eqsat/tensor_egraph.h"
#include "ir/graph.h"

namespace saturate::eqsat {

// Where a graph sits in an e-graph: one root class. Several outputs are joined by noop nodes
// (noop(noop(out0, out1), out2) ...), as TENSAT does, so extraction has a single root.
struct GraphRoot {
  EClassId root;
  std::string graph_name;
  std::vector<std::string> output_names;
};

// Adds every node of the graph: leaves as interned leaf labels, attributes as attribute leaves
// in the operator's slots, an n-way split as a chain of binary splits with explicit cuts.
GraphRoot add_graph(TensorEGraph& egraph, const ir::Graph& graph);

// One chosen e-node per e-class: what an extractor returns.
using Choice = std::unordered_map<uint32_t, TensorNode>;  // canonical class id -> node

// Builds the graph the choice describes from the root down: leaves keep their names, outputs
// their names. Throws saturate::Error if the choice misses a class, chooses a node that does not
// type-check, or is cyclic.
ir::Graph extract_graph(const TensorEGraph& egraph, const GraphRoot& root, const Choice& choice);

}  // namespace saturate::eqsat
