#include "driver/cost_model_factory.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cost/analytic_cost_model.h"
#include "cost/cost_cache.h"
#include "cost/measured_cost_model.h"
#include "cost/onednn_op_timer.h"
#include "cost/profiled_cost_model.h"
#include "onnx/onnxruntime_op_timer.h"
#include "support/cpu_cores.h"
#include "support/error.h"
#include "support/python_helper.h"
#include "support/strings.h"
#ifdef SATURATE_HAVE_CUDA
#include "cost/cuda/cudnn_timer_factory.h"
#endif

namespace saturate::driver {
namespace {

// The operator timer of a measured back end; null for an unknown name.
std::unique_ptr<cost::OpTimer> make_timer(const CostModelOptions& options,
                                          std::shared_ptr<onnx::OnnxruntimeHelper> helper) {
  if (options.kind == "onednn") {
    cost::OnednnTimerOptions timer_options;
    timer_options.threads = options.threads;
    return std::make_unique<cost::OnednnOpTimer>(timer_options);
  }
  if (options.kind == "onnxruntime") {
    onnx::OnnxruntimeTimerOptions timer_options;
    timer_options.python = python_executable();
    timer_options.python_dir = python_package_dir();
    timer_options.threads = onnxruntime_threads(options.threads);
    timer_options.helper = std::move(helper);
    return std::make_unique<onnx::OnnxruntimeOpTimer>(timer_options);
  }
  // Further back ends plug in here, each an OpTimer and a name in cost_model_kinds().
#ifdef SATURATE_HAVE_CUDA
  if (options.kind == "cudnn") return cost::make_cudnn_timer();
#endif
  return nullptr;
}

// "\rmeasuring operator costs (onednn): 40/120" on stderr, a few times a second at most.
std::function<void(size_t, size_t)> progress_printer(const std::string& backend) {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  auto printed = std::make_shared<bool>(false);
  return [backend, last, printed](size_t done, size_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - *last < std::chrono::milliseconds(250)) return;
    *last = now;
    *printed = true;
    std::fprintf(stderr, "\rmeasuring operator costs (%s): %zu/%zu configurations", backend.c_str(),
                 done, total);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

}  // namespace

int onnxruntime_threads(int requested) {
  return requested > 0 ? requested : physical_cores();
}

std::vector<std::string> cost_model_kinds() {
  std::vector<std::string> kinds = {"analytic", "onednn", "onnxruntime"};
#ifdef SATURATE_HAVE_CUDA
  kinds.push_back("cudnn");
#endif
  return kinds;
}

std::unique_ptr<cost::CostModel> make_cost_model(
    const CostModelOptions& options, std::shared_ptr<onnx::OnnxruntimeHelper> onnxruntime_helper) {
  if (options.kind.empty() || options.kind == "analytic") {
    return std::make_unique<cost::AnalyticCostModel>();
  }
  std::unique_ptr<cost::OpTimer> timer = make_timer(options, std::move(onnxruntime_helper));
  if (timer == nullptr) {
    throw Error("unknown cost model '" + options.kind + "' (this build has: " +
                join(cost_model_kinds(), ", ", [](const std::string& s) { return s; }) + ")");
  }
  auto cache = std::make_shared<cost::CostCache>(
      options.cache_path.empty() ? cost::CostCache::default_path() : options.cache_path);
  cost::MeasuredCostOptions measured_options;
  measured_options.on_progress = progress_printer(options.kind);
  if (timer->cpu_threads() > 0 && !options.cache_busy_costs) {
    measured_options.load_probe = std::make_shared<cost::CalibrationKernel>(timer->cpu_threads());
  }
  return std::make_unique<cost::MeasuredCostModel>(std::move(timer),
                                                   std::make_unique<cost::AnalyticCostModel>(),
                                                   std::move(cache), std::move(measured_options));
}

void add_cost_model_report(const cost::CostModel& model, nlohmann::ordered_json& report) {
  report["cost_model"] = model.name();
  // Under profiles the measured model is wrapped (cost::ProfiledCostModel).
  const auto* measured =
      dynamic_cast<const cost::MeasuredCostModel*>(&cost::unwrap_profiles(model));
  if (measured == nullptr) {
    for (const char* key : {"cost_cache", "cost_measured", "cost_cache_hits", "cost_fallbacks",
                            "cost_unmeasured_at_deadline", "cost_measure_seconds",
                            "cost_measured_busy", "cost_load_ratio"}) {
      report[key] = nullptr;
    }
    return;
  }
  const cost::MeasuredCostStats& stats = measured->stats();
  report["cost_cache"] = measured->cache() != nullptr ? measured->cache()->path() : "";
  report["cost_fingerprint"] = measured->fingerprint();
  report["cost_measured"] = stats.measured;
  report["cost_cache_hits"] = stats.cache_hits;
  report["cost_fallbacks"] = stats.fallbacks;
  report["cost_unmeasured_at_deadline"] = stats.unmeasured_at_deadline;
  report["cost_measure_seconds"] = stats.measure_seconds;
  report["cost_measured_busy"] = stats.measured_busy;
  report["cost_load_ratio"] = stats.max_load_ratio;
}

std::string cost_model_summary(const cost::CostModel& model) {
  const auto* measured =
      dynamic_cast<const cost::MeasuredCostModel*>(&cost::unwrap_profiles(model));
  if (measured == nullptr) return "";
  const cost::MeasuredCostStats& stats = measured->stats();
  std::string text = "cost model " + model.name() + ": " + std::to_string(stats.measured) +
                     " configurations measured in " + format_fixed(stats.measure_seconds, 2) +
                     " s, " + std::to_string(stats.cache_hits) + " from the cache";
  if (measured->cache() != nullptr) text += " (" + measured->cache()->path() + ")";
  text += ", " + std::to_string(stats.fallbacks) + " priced by the " + measured->fallback().name() +
          " fallback";
  if (stats.unmeasured_at_deadline > 0) {
    text += ", " + std::to_string(stats.unmeasured_at_deadline) +
            " more by it because the time limit left no time to measure them";
  }
  if (stats.measured_busy > 0) {
    text += "; " + std::to_string(stats.measured_busy) +
            " measured while the machine was busy (a calibration kernel ran up to " +
            format_fixed(stats.max_load_ratio, 1) +
            "x slower than quiet): used for this run, not cached";
  }
  return text;
}

}  // namespace saturate::driver
