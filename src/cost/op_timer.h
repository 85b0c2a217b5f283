#pragma once

#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::cost {

// OwnedOpConfig, the batch unit, is declared in cost_model.h (CostModel::prepare takes it).

// Times operator configurations on one back end (a CPU library in process, an external runtime,
// a GPU), the way TASO times each operator with cuDNN: warm-up runs, then the median of
// repeats. A measured cost model (measured_cost_model.h) asks a timer only for configurations
// its cache does not hold.
class OpTimer {
 public:
  virtual ~OpTimer() = default;
  // Back-end identifier used in reports and as part of the cache key: "onednn", "onnxruntime",
  // "cudnn".
  virtual std::string backend() const = 0;
  // What makes a measurement from this timer valid only here: the machine (CPU model or GPU
  // name, thread count) and the library version. Part of the cache key.
  virtual std::string fingerprint() const = 0;
  // Whether the back end can run this configuration; the measured model prices the others with
  // its fallback model and counts them in its report.
  virtual bool supports(const OpConfig& config) const = 0;
  // Milliseconds per run of each configuration (median of repeats after warm-up), in order.
  // Batched so that a back end with a fixed start cost (a subprocess, a device context) pays it
  // once. Throws saturate::Error when the back end fails; never returns a made-up value.
  virtual std::vector<double> time_ms(const std::vector<OwnedOpConfig>& configs) = 0;
  // Timed repeats behind each median, recorded with the measurement in the cost cache; 0 when
  // the back end does not say.
  virtual int repeats() const { return 0; }
  // CPU threads a timing keeps busy, which the load probe runs on too (load_probe.h); 0 for a
  // back end whose timings do not depend on other work on the CPU (a GPU).
  virtual int cpu_threads() const { return 0; }
};

}  // namespace saturate::cost
