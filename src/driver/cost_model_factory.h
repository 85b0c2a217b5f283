#pragma once

// Which cost model a run prices operators with (--cost, --cost-cache, --threads), and the
// factory that makes it. Measured models (a back end's OpTimer behind cost::MeasuredCostModel)
// plug in here.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "onnx/onnxruntime_helper.h"

namespace saturate::driver {

struct CostModelOptions {
  // See cost_model_kinds(); empty: the command's default (analytic, or onnxruntime for an ONNX
  // model in `optimize`).
  std::string kind;
  std::string cache_path;  // empty: cost::CostCache::default_path()
  int threads = 0;  // CPU timers' threads; 0: ONNX Runtime's default (physical cores), OpenMP's
  // Cache costs timed while the machine is busy too, without the load probe (load_probe.h):
  // for a machine that is never quiet, or tests that need the cache filled.
  bool cache_busy_costs = false;
};

// ONNX Runtime's intra-op threads for `requested` (CostModelOptions::threads): the count given,
// else ONNX Runtime's own default, one per physical core.
int onnxruntime_threads(int requested);

// The models this build can make: "analytic", "onednn" (and "cudnn" with CUDA).
std::vector<std::string> cost_model_kinds();

// The model asked for. A measured model opens its cache (a saturate::Error when the file is
// corrupt) and reports its progress on stderr while it times configurations. The onnxruntime
// model times through `onnxruntime_helper` when given (the run's one helper process), else
// through its own.
std::unique_ptr<cost::CostModel> make_cost_model(
    const CostModelOptions& options,
    std::shared_ptr<onnx::OnnxruntimeHelper> onnxruntime_helper = nullptr);

// Adds cost_model, cost_cache, cost_measured, cost_cache_hits, cost_fallbacks,
// cost_unmeasured_at_deadline, cost_measure_seconds, cost_measured_busy and cost_load_ratio to a
// report (all but the first null for the analytic model).
void add_cost_model_report(const cost::CostModel& model, nlohmann::ordered_json& report);

// "cost model onednn: 12 configurations measured in 0.84 s, 40 from the cache (PATH), 3 priced
// analytically"; empty for models that measure nothing.
std::string cost_model_summary(const cost::CostModel& model);

}  // namespace saturate::driver
