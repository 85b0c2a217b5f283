#pragma once

#include <vector>

#include "cost/cost_model.h"
#include "ir/graph.h"

namespace saturate::cost {

struct GraphCost {
  double total = 0;              // milliseconds, sum over nodes, each node once
  int folded_operators = 0;      // operators computed from weights only, priced at zero
  std::vector<double> per_node;  // indexed by NodeId; leaves and folded nodes are 0
};

// The types of a node's inputs: what an OpConfig for that node refers to.
std::vector<ir::TensorType> input_types(const ir::Graph& graph, ir::NodeId id);

// Sum of per-operator costs; leaves, noop and compile-time-known operators cost zero (the model
// is not asked about them). Every node is priced once, however many consumers it has.
GraphCost graph_cost(const ir::Graph& graph, const CostModel& model);

}  // namespace saturate::cost
