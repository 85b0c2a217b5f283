#pragma once

#include "cost/cost_model.h"
#include "eqsat/tensor_egraph.h"

namespace saturate::search {

// What the cost model charges for the IR operator an operator e-node becomes when extracted
// (a split with its cut written as sizes), from its children's shape facts. Unlike
// eqsat::node_cost it does not check for compile-time folding: the caller decides that from the
// nodes it chose, as cost::graph_cost does on the extracted graph. Zero for split projections
// and noop, which are no operators of their own.
double node_price(const eqsat::TensorEGraph& egraph, const eqsat::TensorNode& node,
                  const cost::CostModel& model);

}  // namespace saturate::search
