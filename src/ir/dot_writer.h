#pragma once

#include <string>

#include "ir/graph.h"

namespace saturate::ir {

// Graphviz DOT: one box per operator (with its non-default attributes), inputs as ellipses,
// weights greyed, outputs as double octagons, edges labelled with tensor shapes.
std::string write_dot(const Graph& graph);

}  // namespace saturate::ir
