#include "cost/measured_cost_model.h"

#include <algorithm>
#include <chrono>

#include "support/error.h"

namespace saturate::cost {

MeasuredCostModel::MeasuredCostModel(std::unique_ptr<OpTimer> timer,
                                     std::unique_ptr<CostModel> fallback,
                                     std::shared_ptr<CostCache> cache, MeasuredCostOptions options)
    : timer_(std::move(timer)),
      fallback_(std::move(fallback)),
      cache_(std::move(cache)),
      options_(std::move(options)) {
  if (timer_ == nullptr) throw Error("a measured cost model needs an operator timer");
  if (fallback_ == nullptr) throw Error("a measured cost model needs a fallback model");
  options_.batch_size = std::max<size_t>(options_.batch_size, 1);
  backend_ = timer_->backend();
  fingerprint_ = timer_->fingerprint();
}

std::string MeasuredCostModel::name() const {
  return backend_;
}

double MeasuredCostModel::op_cost(const OpConfig& config) const {
  // A symbolic configuration's key names symbols, not sizes: never timed nor cached.
  require_concrete_shapes(config, "the " + backend_ + " model");
  const std::string key = cache_key(config);
  if (auto it = costs_.find(key); it != costs_.end()) return it->second;
  prepare({OwnedOpConfig::from(config)});
  return costs_.at(key);
}

void MeasuredCostModel::prepare(const std::vector<OwnedOpConfig>& configs) const {
  std::vector<const OwnedOpConfig*> to_time;
  std::vector<std::string> keys;
  std::unordered_map<std::string, bool> pending;
  for (const OwnedOpConfig& config : configs) {
    require_concrete_shapes(config.view(), "the " + backend_ + " model");
  }
  for (const OwnedOpConfig& config : configs) {
    const OpConfig view = config.view();
    std::string key = cache_key(view);
    if (costs_.contains(key) || pending.contains(key)) continue;
    if (is_identity_reshape(view)) {  // nothing to time
      costs_.emplace(key, 0.0);
      continue;
    }
    if (!timer_->supports(view)) {
      costs_.emplace(key, fallback_->op_cost(view));
      ++stats_.fallbacks;
      continue;
    }
    if (cache_ != nullptr) {
      if (auto cached = cache_->find(backend_, fingerprint_, key)) {
        costs_.emplace(key, cached->milliseconds);
        ++stats_.cache_hits;
        continue;
      }
    }
    pending.emplace(key, true);
    to_time.push_back(&config);
    keys.push_back(std::move(key));
  }

  LoadProbe* probe = options_.load_probe.get();
  if (probe != nullptr && !to_time.empty() && quiet_probe_ms_ == 0) {
    quiet_probe_ms_ = probe->quiet_ms();
    if (cache_ != nullptr) {
      if (auto recorded = cache_->quiet_calibration(fingerprint_, probe->name())) {
        quiet_probe_ms_ = std::min(quiet_probe_ms_, *recorded);
      }
      cache_->record_quiet_calibration(fingerprint_, probe->name(), quiet_probe_ms_);
    }
  }
  // The probe's time just before the batch: after the previous one, or asked now.
  double before_ms = probe != nullptr && !to_time.empty() ? probe->current_ms() : 0;
  for (size_t begin = 0; begin < to_time.size(); begin += options_.batch_size) {
    if (measure_until_.expired()) {
      for (size_t i = begin; i < to_time.size(); ++i) {
        costs_.emplace(keys[i], fallback_->op_cost(to_time[i]->view()));
        ++stats_.unmeasured_at_deadline;
      }
      break;
    }
    const size_t end = std::min(to_time.size(), begin + options_.batch_size);
    std::vector<OwnedOpConfig> batch;
    for (size_t i = begin; i < end; ++i) batch.push_back(*to_time[i]);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> milliseconds = timer_->time_ms(batch);
    stats_.measure_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (milliseconds.size() != batch.size()) {
      throw Error("the " + backend_ + " timer returned " + std::to_string(milliseconds.size()) +
                  " times for " + std::to_string(batch.size()) + " configurations");
    }
    bool busy = false;
    if (probe != nullptr) {
      const double after_ms = probe->current_ms();
      const double ratio = std::max(before_ms, after_ms) / quiet_probe_ms_;
      stats_.max_load_ratio = std::max(stats_.max_load_ratio, ratio);
      busy = ratio >= kBusyLoadRatio;
      before_ms = after_ms;
    }
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::vector<std::pair<std::string, CachedCost>> entries;
    for (size_t i = begin; i < end; ++i) {
      const double ms = milliseconds[i - begin];
      costs_.emplace(keys[i], ms);
      if (!busy) entries.emplace_back(keys[i], CachedCost{ms, timer_->repeats(), now});
      ++stats_.measured;
      if (busy) ++stats_.measured_busy;
    }
    if (cache_ != nullptr) cache_->store(backend_, fingerprint_, entries);
    if (options_.on_progress) options_.on_progress(end, to_time.size());
  }
}

}  // namespace saturate::cost
