#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/cost_cache.h"
#include "cost/cost_model.h"
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
};

struct MeasuredCostOptions {
  // Configurations handed to the timer per call; progress is reported between calls.
  size_t batch_size = 16;
  // Called after each batch with (configurations timed so far, configurations to time); may be
  // empty.
  std::function<void(size_t, size_t)> on_progress;
};

// Prices each operator configuration by timing it on a back end (an OpTimer), the way TASO
// measures every distinct operator once on cuDNN. Measurements are kept in memory and, when a
// cache is given, on disk keyed by back end, machine fingerprint and configuration; a later
// process on the same machine measures nothing it has measured before. Configurations the back
// end does not support are priced by the fallback model (analytic) and counted.
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
};

}  // namespace saturate::cost
