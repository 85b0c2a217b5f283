#pragma once

#include "cost/op_timer.h"
#include "ir/graph.h"

namespace saturate::cost {

// Whether input `input` of `op` is a trained parameter in real graphs (a convolution's kernel,
// a normalization's scale and shift), and so a weight, prepared at compile time, when timed.
bool is_parameter_input(ir::OpKind op, size_t input);

// The graph a timer runs to time one configuration: inputs "in0".."inN" (weights where
// is_parameter_input says so), the operator, and one output per result ("out0"...).
ir::Graph one_node_graph(const OwnedOpConfig& config);

}  // namespace saturate::cost
