#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "runtime/tensor.h"

namespace saturate::runtime {

enum class Precision { F32, F64 };

struct InterpreterOptions {
  // F32 rounds every produced element to its value's element type: float, or float16 and
  // bfloat16 for those values (what a runtime computes, up to the order of summation; 16-bit
  // operators computed in float and rounded once, as CPU runtimes do); F64 keeps doubles
  // throughout, for checking rules tightly.
  Precision precision = Precision::F32;
  // Called by run() after each operator with (operators done, operators to run), for progress
  // reports on long runs; may be empty.
  std::function<void(size_t, size_t)> on_progress;
};

// Throws saturate::Error naming the first value of `graph` whose shape holds a symbolic
// dimension (ir/symbolic_dim.h), or the first node with a symbolic integer attribute: `runner`
// ("the reference interpreter", "the oneDNN executor") runs sizes only, so a graph with symbols
// must be bound to concrete sizes first. Run, run_all and the oneDNN executor call it before
// allocating anything.
void require_static_graph(const ir::Graph& graph, std::string_view runner);

// Deterministic random values (seeded) for every input, weight and constant of the graph not
// already in `given`: inputs uniform in [-1, 1]; weights scaled by 1/sqrt(fan-in) so that deep
// models stay in range; batchnorm variances positive. Constants take their attribute value. A
// leaf to fill whose shape is symbolic is a saturate::Error naming it (bind the graph first).
TensorMap random_feeds(const ir::Graph& graph, uint64_t seed, const TensorMap& given = {});

// The reference interpreter: simple loops, exact semantics, no tricks. It exists to check rules
// and optimized graphs numerically, not to be fast.
class Interpreter {
 public:
  explicit Interpreter(InterpreterOptions options = {}) : options_(options) {}
  explicit Interpreter(Precision precision) : options_{.precision = precision, .on_progress = {}} {}

  // Values of the graph's outputs, by output name. `feeds` must hold every input and weight by
  // name (see random_feeds); a missing or mis-shaped feed is a saturate::Error naming it.
  TensorMap run(const ir::Graph& graph, const TensorMap& feeds) const;

  // Every value of every node, indexed [node][output].
  std::vector<std::vector<Tensor>> run_all(const ir::Graph& graph, const TensorMap& feeds) const;

  // One operator on given input values (attributes complete, as in a graph node).
  std::vector<Tensor> evaluate(const ir::Node& node,
                               const std::vector<const Tensor*>& inputs) const;

 private:
  InterpreterOptions options_;
};

}  // namespace saturate::runtime
