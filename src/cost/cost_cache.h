#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cost/cost_model.h"

struct sqlite3;

namespace saturate::cost {

// One stored measurement.
struct CachedCost {
  double milliseconds = 0;
  int repeats = 0;          // timed repeats behind the median (0: not reported)
  int64_t measured_at = 0;  // seconds since the Unix epoch
};

// The cache key of a configuration: describe(config) followed by its output types, e.g.
// "split(f32[4 6]) axis=1 sizes=[2 4] -> f32[4 2], f32[4 4]".
std::string cache_key(const OpConfig& config);

// Measured operator costs on disk: one SQLite table keyed by back end, machine fingerprint and
// configuration text, so that measurements survive across runs and processes and are never
// reused on another machine or library version. Several processes may share one file (SQLite
// locks it; writers wait up to 10 s).
class CostCache {
 public:
  // Opens or creates the file (and its directories). Throws saturate::Error naming the path
  // when it cannot be created or is not a Saturate cost cache (a corrupt or foreign file).
  explicit CostCache(std::string path);
  ~CostCache();
  CostCache(const CostCache&) = delete;
  CostCache& operator=(const CostCache&) = delete;

  std::optional<CachedCost> find(const std::string& backend, const std::string& fingerprint,
                                 const std::string& key) const;
  // Inserts or replaces measurements, in one transaction.
  void store(const std::string& backend, const std::string& fingerprint,
             const std::vector<std::pair<std::string, CachedCost>>& entries);
  // The least time per unit of a load probe's work (load_probe.h) recorded on the machine of
  // `fingerprint`, if any.
  std::optional<double> quiet_calibration(const std::string& fingerprint,
                                          const std::string& probe) const;
  // Records `milliseconds` when it is less than the recorded time (or none is recorded).
  void record_quiet_calibration(const std::string& fingerprint, const std::string& probe,
                                double milliseconds);
  // Rows stored, over all back ends and fingerprints.
  size_t size() const;
  const std::string& path() const { return path_; }

  // $SATURATE_COST_CACHE when set, else ~/.cache/saturate/costs.sqlite ($XDG_CACHE_HOME is
  // honoured).
  static std::string default_path();

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace saturate::cost
