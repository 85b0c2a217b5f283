#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"

namespace saturate::runtime {

struct GraphComparison {
  double max_abs_error = 0;
  double max_relative_error = 0;  // |a - b| / (1 + |b|)
  bool finite = true;             // every output of both graphs is finite
  std::string worst_output;       // the output with the largest relative error
};

// Runs both graphs in the reference interpreter (float64) on the same seeded random inputs and
// weights (matched by name) and compares the outputs of the same name. Throws saturate::Error
// when the graphs do not have the same output names and shapes.
GraphComparison compare_graphs(const ir::Graph& reference, const ir::Graph& candidate,
                               uint64_t seed = 0);

}  // namespace saturate::runtime
