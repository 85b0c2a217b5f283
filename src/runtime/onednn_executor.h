#pragma once

// The fast executor: an ir::Graph compiled once into a plan of oneDNN primitives (with the
// reference kernels for the operators oneDNN does not cover), run many times. Used to time
// whole graphs (`saturate bench`) and single operator configurations (the measured cost model).
// oneDNN types stay out of this header.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/tensor.h"

namespace saturate::runtime {

struct OnednnOptions {
  // OpenMP threads oneDNN runs with; 0 keeps the OpenMP default (OMP_NUM_THREADS or all cores).
  int threads = 0;
};

// What a compiled plan holds, for reports and tests.
struct OnednnPlanStats {
  size_t primitives = 0;     // oneDNN primitives run per execution, reorders included
  size_t reorders = 0;       // of which layout changes (plain <-> blocked, transposes)
  size_t native_copies = 0;  // split parts copied and reshapes/noops aliased without a kernel
  size_t fallbacks = 0;      // operators run by the reference kernels at every execution
  size_t folded = 0;         // operators computed from weights only, once, at compile time
  size_t buffer_bytes = 0;   // float32 storage the plan allocated for values
};

// Compiles `graph` once: every weight must be in `weights` (inputs may be there too and are
// ignored). Operators whose inputs are all weights or constants are computed at compile time
// (TASO's weight preprocessing) with the reference interpreter. Values are float32; a graph with
// another element type, or an operator neither oneDNN nor the reference kernels can run (an
// opaque import), is refused with a saturate::Error naming the node.
class OnednnExecutor {
 public:
  OnednnExecutor(const ir::Graph& graph, const TensorMap& weights, OnednnOptions options = {});
  ~OnednnExecutor();
  OnednnExecutor(OnednnExecutor&&) noexcept;
  OnednnExecutor& operator=(OnednnExecutor&&) noexcept;
  OnednnExecutor(const OnednnExecutor&) = delete;
  OnednnExecutor& operator=(const OnednnExecutor&) = delete;

  // One execution: copies the graph inputs from `feeds` (by name; extra entries are ignored;
  // a missing or mis-shaped one is an Error naming it), runs the plan, returns the outputs by
  // name, as Interpreter::run does.
  TensorMap run(const TensorMap& feeds);

  // The same in parts, for timing: set the inputs once, then execute repeatedly.
  void set_inputs(const TensorMap& feeds);
  void execute();
  TensorMap outputs() const;

  // Milliseconds of each of `runs` executions on the current inputs, after `warmup` untimed ones.
  std::vector<double> time_runs(int warmup, int runs);

  const OnednnPlanStats& stats() const;

  // Whether an operator configuration runs as oneDNN primitives or a native copy (true) rather
  // than through a reference kernel (false). Leaves are false.
  static bool runs_natively(ir::OpKind op, const ir::Attributes& attrs,
                            const std::vector<ir::TensorType>& inputs,
                            const std::vector<ir::TensorType>& outputs);

  // The compiled plan; defined in the source file only (public so that its builder can be).
  struct Plan;

 private:
  std::unique_ptr<Plan> plan_;
};

// The number of OpenMP threads an executor created with `requested` threads runs with.
int onednn_thread_count(int requested);
// The oneDNN library version, "2.6.3".
std::string onednn_version();

}  // namespace saturate::runtime
