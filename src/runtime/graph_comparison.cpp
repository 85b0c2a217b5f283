#include "runtime/graph_comparison.h"

#include <cmath>

#include "runtime/interpreter.h"
#include "support/error.h"

namespace saturate::runtime {

GraphComparison compare_graphs(const ir::Graph& reference, const ir::Graph& candidate,
                               uint64_t seed) {
  if (reference.outputs().size() != candidate.outputs().size()) {
    throw Error("the graphs have " + std::to_string(reference.outputs().size()) + " and " +
                std::to_string(candidate.outputs().size()) + " outputs");
  }
  Interpreter interpreter(Precision::F64);
  // The candidate may lack some of the reference's weights (folded, say) or have new ones;
  // random_feeds fills what the shared ones do not cover, with the same seed.
  TensorMap feeds = random_feeds(reference, seed);
  TensorMap candidate_feeds = random_feeds(candidate, seed, feeds);
  TensorMap expected = interpreter.run(reference, feeds);
  TensorMap actual = interpreter.run(candidate, candidate_feeds);
  GraphComparison result;
  for (const ir::GraphOutput& output : reference.outputs()) {
    auto it = actual.find(output.name);
    if (it == actual.end()) throw Error("the optimized graph has no output '" + output.name + "'");
    const Tensor& want = expected.at(output.name);
    const Tensor& got = it->second;
    if (want.dims != got.dims) {
      throw Error("output '" + output.name + "' has shape " + ir::to_string(got.dims) +
                  " instead of " + ir::to_string(want.dims));
    }
    for (size_t i = 0; i < want.data.size(); ++i) {
      result.finite = result.finite && std::isfinite(want.data[i]) && std::isfinite(got.data[i]);
    }
    double relative = max_relative_difference(got, want);
    result.max_abs_error = std::max(result.max_abs_error, max_abs_difference(got, want));
    if (relative >= result.max_relative_error) {
      result.max_relative_error = relative;
      result.worst_output = output.name;
    }
  }
  return result;
}

}  // namespace saturate::runtime
