#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/cost_cache.h"
#include "cost/cost_model.h"
#include "cost/load_probe.h"
#include "cost/op_timer.h"

namespace saturate::cost {

// What a measured model did, for reports. Each distinct configuration counts once.
struct MeasuredCostStats {
  size_t measured = 0;    // timed on the back end in this process
  size_t cache_hits = 0;  // found in the on-disk cache
  size_t fallbacks = 0;   // not supported by the back end: priced by the fallback model
  // Not timed because the measurement deadline came first: priced by the fallback model too.
  size_t unmeasured_at_deadline = 0;
  double measure_seconds = 0;  // wall time spent timing
  // Timed while the machine was busy (the load probe ran kBusyLoadRatio or more times slower
  // than quiet): priced from that timing in this run, never cached.
  size_t measured_busy = 0;
  // The load probe's slowest time over its quiet time, over every batch timed (0: no probe ran).
  double max_load_ratio = 0;
};

struct MeasuredCostOptions {
  // Configurations handed to the timer per call; progress is reported between calls.
  size_t batch_size = 16;
  // Called after each batch with (configurations timed so far, configurations to time); may be
  // empty.
  std::function<void(size_t, size_t)> on_progress;
  // Asked before and after each batch; null: every batch counts as quiet (tests, back ends
  // whose timings do not depend on the CPU's load).
  std::shared_ptr<LoadProbe> load_probe;
};

// Prices each operator configuration by timing it on a back end (an OpTimer), the way TASO
// measures every distinct operator once on cuDNN. Measurements are kept in memory and, when a
// cache is given, on disk keyed by back end, machine fingerprint and configuration; a later
// process on the same machine measures nothing it has measured before. Configurations the back
// end does not support are priced by the fallback model (analytic) and counted. A batch timed
// while a load probe says the machine is busy prices this run but is not cached.
class MeasuredCostModel : public CostModel {
 public:
  // `cache` may be null (measurements live only in memory). Throws saturate::Error when the
  // timer or the fallback is null.
  MeasuredCostModel(std::unique_ptr<OpTimer> timer, std::unique_ptr<CostModel> fallback,
                    std::shared_ptr<CostCache> cache, MeasuredCostOptions options = {});

  // The back end's name: "onednn", "onnxruntime", "cudnn".
  std::string name() const override;
  double op_cost(const OpConfig& config) const override;
  bool wants_prepare() const override { return true; }
  // Times, in batches, every configuration not yet known (in memory or on disk).
  void prepare(const std::vector<OwnedOpConfig>& configs) const override;
  void set_measurement_deadline(Deadline deadline) const override { measure_until_ = deadline; }

  const MeasuredCostStats& stats() const { return stats_; }
  const std::string& fingerprint() const { return fingerprint_; }
  const CostCache* cache() const { return cache_.get(); }
  const CostModel& fallback() const { return *fallback_; }

 private:
  std::unique_ptr<OpTimer> timer_;
  std::unique_ptr<CostModel> fallback_;
  std::shared_ptr<CostCache> cache_;
  MeasuredCostOptions options_;
  std::string backend_;
  std::string fingerprint_;
  // Pricing is logically const (a configuration always has the same cost); what it learns is
  // remembered here.
  mutable std::unordered_map<std::string, double> costs_;
  mutable MeasuredCostStats stats_;
  mutable Deadline measure_until_ = Deadline::never();
  // The probe's quiet time per unit (the least of this run's and the cache's); 0 until asked.
  mutable double quiet_probe_ms_ = 0;
};

}  // namespace saturate::cost
