#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "eqsat/tensor_info.h"
#include "eqsat/term.h"
#include "ir/graph.h"

namespace saturate::eqsat {

// What a rule's variables stand for when a term is built into a graph.
struct TermBindings {
  std::map<std::string, ir::ValueRef> tensors;
  std::map<std::string, ir::AttrValue> attributes;
};

// Builds terms into an ir::Graph: operators become nodes (shape-checked by the graph), TENSAT's
// binary split becomes an IR split at the recorded concat boundary, and split_0/split_1 of the
// same split share one node. Used to check rules numerically and to apply them to graphs.
class TermBuilder {
 public:
  explicit TermBuilder(ir::Graph& graph) : graph_(graph) {}

  // Throws saturate::Error when a variable is unbound, a shape does not check, or a split finds
  // no boundary.
  ir::ValueRef build(const Term& term, const TermBindings& bindings);

  // The analysis facts of any value of the graph (computed on demand, remembered).
  const TensorInfo& info(ir::ValueRef value);

  // Records concat boundaries on a graph input, as an e-class the input stands for may carry
  // them (a split of a variable cuts at its last boundary on the axis). Call before building.
  void set_boundaries(ir::ValueRef input, std::vector<std::vector<int64_t>> boundaries);

 private:
  ir::NodeId build_split(const Term& split, const TermBindings& bindings);

  ir::Graph& graph_;
  std::map<std::pair<ir::NodeId, uint32_t>, TensorInfo> infos_;
  std::map<std::tuple<ir::NodeId, uint32_t, int64_t>, ir::NodeId> splits_;
};

}  // namespace saturate::eqsat
