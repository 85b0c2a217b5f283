// The measured cost model over a fake, deterministic timer: what is measured, what comes from the
// on-disk cache, what falls back, and how a bad cache file is reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cost/analytic_cost_model.h"
#include "cost/cost_cache.h"
#include "cost/load_probe.h"
#include "cost/measured_cost_model.h"
#include "ir/op_registry.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::cost;

namespace {

// Counts what it is asked; "measures" 0.001 ms per output element plus 0.01. Pow is unsupported.
struct TimerLog {
  size_t calls = 0;
  size_t timed = 0;
};

class FakeTimer : public OpTimer {
 public:
  FakeTimer(std::shared_ptr<TimerLog> log, std::string fingerprint = "fake-machine")
      : log_(std::move(log)), fingerprint_(std::move(fingerprint)) {}
  std::string backend() const override { return "fake"; }
  std::string fingerprint() const override { return fingerprint_; }
  bool supports(const OpConfig& config) const override { return config.op != ir::OpKind::Pow; }
  std::vector<double> time_ms(const std::vector<OwnedOpConfig>& configs) override {
    ++log_->calls;
    std::vector<double> result;
    for (const OwnedOpConfig& config : configs) {
      ++log_->timed;
      result.push_back(0.01 + 0.001 * static_cast<double>(config.outputs[0].num_elements()));
    }
    return result;
  }
  int repeats() const override { return 5; }

 private:
  std::shared_ptr<TimerLog> log_;
  std::string fingerprint_;
};

// Answers quiet_ms() with `quiet`, then current_ms() with each of `loads` in turn (times quiet);
// the last repeats.
class ScriptedProbe : public LoadProbe {
 public:
  ScriptedProbe(double quiet, std::vector<double> loads)
      : quiet_(quiet), loads_(std::move(loads)) {}
  double quiet_ms() override {
    ++quiet_calls;
    return quiet_;
  }
  double current_ms() override {
    const double load = loads_[std::min(next_, loads_.size() - 1)];
    ++next_;
    return load * quiet_;
  }
  std::string name() const override { return "scripted"; }
  size_t quiet_calls = 0;

 private:
  double quiet_;
  std::vector<double> loads_;
  size_t next_ = 0;
};

OwnedOpConfig config_of(ir::OpKind op, std::vector<ir::TensorType> inputs,
                        ir::Attributes attrs = {}) {
  OwnedOpConfig config{op, ir::complete_attributes(ir::op_info(op), attrs), std::move(inputs), {}};
  config.outputs = ir::infer_types(op, config.inputs, config.attrs);
  return config;
}

ir::TensorType f32(ir::Dims dims) {
  return {ir::DType::F32, std::move(dims)};
}

std::vector<OwnedOpConfig> sample_configs() {
  return {config_of(ir::OpKind::Relu, {f32({4, 8})}),
          config_of(ir::OpKind::MatMul, {f32({4, 8}), f32({8, 2})}),
          config_of(ir::OpKind::MatMul, {f32({4, 8}), f32({8, 2})},
                    {{"activation", int64_t{2}}}),  // relu: another configuration
          config_of(ir::OpKind::Pow, {f32({4, 8}), f32({4, 8})})};
}

class MeasuredCostModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("saturate_cost_measured_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) /
            "costs.sqlite";
    std::filesystem::remove_all(path_.parent_path());
  }
  void TearDown() override { std::filesystem::remove_all(path_.parent_path()); }

  std::unique_ptr<MeasuredCostModel> make_model(std::shared_ptr<TimerLog> log,
                                                std::string fingerprint = "fake-machine",
                                                MeasuredCostOptions options = {}) {
    return std::make_unique<MeasuredCostModel>(
        std::make_unique<FakeTimer>(std::move(log), std::move(fingerprint)),
        std::make_unique<AnalyticCostModel>(), std::make_shared<CostCache>(path_.string()),
        std::move(options));
  }

  std::filesystem::path path_;
};

}  // namespace

TEST_F(MeasuredCostModelTest, MeasuresOnceThenAFreshModelReadsTheFile) {
  const std::vector<OwnedOpConfig> configs = sample_configs();
  auto first_log = std::make_shared<TimerLog>();
  std::vector<double> first_costs;
  {
    auto model = make_model(first_log);
    model->prepare(configs);
    EXPECT_EQ(model->stats().measured, 3u);
    EXPECT_EQ(model->stats().cache_hits, 0u);
    EXPECT_EQ(model->stats().fallbacks, 1u);
    EXPECT_EQ(first_log->timed, 3u);
    for (const OwnedOpConfig& config : configs)
      first_costs.push_back(model->op_cost(config.view()));
    EXPECT_EQ(first_log->timed, 3u);  // op_cost after prepare asks the timer nothing
    EXPECT_EQ(model->name(), "fake");
  }
  EXPECT_TRUE(std::filesystem::exists(path_));  // directories were created

  auto second_log = std::make_shared<TimerLog>();
  auto model = make_model(second_log);
  for (size_t i = 0; i < configs.size(); ++i) {
    EXPECT_DOUBLE_EQ(model->op_cost(configs[i].view()), first_costs[i]);
  }
  EXPECT_EQ(second_log->calls, 0u);
  EXPECT_EQ(model->stats().measured, 0u);
  EXPECT_EQ(model->stats().cache_hits, 3u);
  EXPECT_EQ(model->stats().fallbacks, 1u);
  EXPECT_EQ(model->cache()->size(), 3u);
}

TEST_F(MeasuredCostModelTest, AnotherFingerprintMeasuresAgain) {
  make_model(std::make_shared<TimerLog>())->prepare(sample_configs());
  auto log = std::make_shared<TimerLog>();
  auto model = make_model(log, "another-machine");
  model->prepare(sample_configs());
  EXPECT_EQ(model->stats().measured, 3u);
  EXPECT_EQ(model->stats().cache_hits, 0u);
  EXPECT_EQ(log->timed, 3u);
  EXPECT_EQ(model->cache()->size(), 6u);
}

TEST_F(MeasuredCostModelTest, UnsupportedConfigurationsUseTheFallback) {
  auto log = std::make_shared<TimerLog>();
  auto model = make_model(log);
  const OwnedOpConfig pow = sample_configs().back();
  const double expected = AnalyticCostModel().op_cost(pow.view());
  EXPECT_DOUBLE_EQ(model->op_cost(pow.view()), expected);
  EXPECT_DOUBLE_EQ(model->op_cost(pow.view()), expected);
  EXPECT_EQ(model->stats().fallbacks, 1u);  // counted once per configuration
  EXPECT_EQ(log->calls, 0u);
  EXPECT_EQ(model->cache()->size(), 0u);  // fallback prices are not stored
}

TEST_F(MeasuredCostModelTest, EqualConfigurationsAreMeasuredOnce) {
  auto log = std::make_shared<TimerLog>();
  auto model = make_model(log);
  std::vector<OwnedOpConfig> configs = sample_configs();
  const std::vector<OwnedOpConfig> again = sample_configs();
  configs.insert(configs.end(), again.begin(), again.end());
  model->prepare(configs);
  model->prepare(configs);
  EXPECT_EQ(log->timed, 3u);
  EXPECT_EQ(log->calls, 1u);
}

TEST_F(MeasuredCostModelTest, BatchesReportProgress) {
  auto log = std::make_shared<TimerLog>();
  std::vector<std::pair<size_t, size_t>> progress;
  MeasuredCostOptions options;
  options.batch_size = 2;
  options.on_progress = [&](size_t done, size_t total) { progress.emplace_back(done, total); };
  auto model = make_model(log, "fake-machine", options);
  std::vector<OwnedOpConfig> configs;
  for (int64_t n = 1; n <= 5; ++n) configs.push_back(config_of(ir::OpKind::Relu, {f32({n, 3})}));
  model->prepare(configs);
  EXPECT_EQ(log->calls, 3u);
  EXPECT_EQ(progress, (std::vector<std::pair<size_t, size_t>>{{2, 5}, {4, 5}, {5, 5}}));
  EXPECT_GE(model->stats().measure_seconds, 0.0);
}

std::vector<OwnedOpConfig> relus(int64_t count) {
  std::vector<OwnedOpConfig> configs;
  for (int64_t n = 1; n <= count; ++n)
    configs.push_back(config_of(ir::OpKind::Relu, {f32({n, 3})}));
  return configs;
}

TEST_F(MeasuredCostModelTest, BatchesTimedWhileBusyPriceThisRunButAreNotCached) {
  // One configuration a batch; the probe reads quiet, quiet, busy, quiet, quiet: the batch that
  // ends busy and the one that starts busy are not cached, the others are.
  auto log = std::make_shared<TimerLog>();
  MeasuredCostOptions options;
  options.batch_size = 1;
  options.load_probe =
      std::make_shared<ScriptedProbe>(2.0, std::vector<double>{1.0, 1.1, 2.0, 1.0, 1.2});
  const std::vector<OwnedOpConfig> configs = relus(4);
  auto model = make_model(log, "fake-machine", options);
  model->prepare(configs);
  EXPECT_EQ(model->stats().measured, 4u);
  EXPECT_EQ(model->stats().measured_busy, 2u);
  EXPECT_DOUBLE_EQ(model->stats().max_load_ratio, 2.0);
  for (const OwnedOpConfig& config : configs) {  // every one priced from its timing
    EXPECT_DOUBLE_EQ(model->op_cost(config.view()),
                     0.01 + 0.001 * static_cast<double>(config.outputs[0].num_elements()));
  }
  CostCache cache(path_.string());
  EXPECT_EQ(cache.size(), 2u);
  for (size_t i = 0; i < configs.size(); ++i) {
    const bool cached =
        cache.find("fake", "fake-machine", cache_key(configs[i].view())).has_value();
    EXPECT_EQ(cached, i == 0 || i == 3) << i;
  }
}

TEST_F(MeasuredCostModelTest, AQuietMachineCachesEverythingAndKeepsItsLeastCalibration) {
  auto log = std::make_shared<TimerLog>();
  MeasuredCostOptions options;
  options.batch_size = 2;
  auto probe = std::make_shared<ScriptedProbe>(3.0, std::vector<double>{1.0, 1.29});
  options.load_probe = probe;
  auto model = make_model(log, "fake-machine", options);
  model->prepare(relus(5));
  EXPECT_EQ(model->stats().measured_busy, 0u);
  EXPECT_DOUBLE_EQ(model->stats().max_load_ratio, 1.29);
  EXPECT_EQ(probe->quiet_calls, 1u);
  {
    CostCache cache(path_.string());
    EXPECT_EQ(cache.size(), 5u);
    EXPECT_EQ(cache.quiet_calibration("fake-machine", "scripted"), 3.0);
    cache.record_quiet_calibration("fake-machine", "scripted", 4.0);  // more: not recorded
    EXPECT_EQ(cache.quiet_calibration("fake-machine", "scripted"), 3.0);
    cache.record_quiet_calibration("fake-machine", "scripted", 1.5);
    EXPECT_EQ(cache.quiet_calibration("fake-machine", "scripted"), 1.5);
    EXPECT_FALSE(cache.quiet_calibration("another-machine", "scripted").has_value());
  }
  // A later run compares with the least quiet time on record, not only its own: a probe whose
  // own quiet estimate was taken on a busy machine (3.0) still sees 3.0 as twice quiet (1.5).
  auto later =
      make_model(std::make_shared<TimerLog>(), "fake-machine",
                 {.batch_size = 16,
                  .on_progress = {},
                  .load_probe = std::make_shared<ScriptedProbe>(3.0, std::vector<double>{1.0})});
  later->prepare(relus(7));
  EXPECT_EQ(later->stats().measured, 2u);  // 5 from the cache
  EXPECT_EQ(later->stats().measured_busy, 2u);
  EXPECT_DOUBLE_EQ(later->stats().max_load_ratio, 2.0);
}

TEST_F(MeasuredCostModelTest, NothingToTimeRunsNoProbe) {
  auto probe = std::make_shared<ScriptedProbe>(1.0, std::vector<double>{1.0});
  MeasuredCostOptions options;
  options.load_probe = probe;
  auto model = make_model(std::make_shared<TimerLog>(), "fake-machine", options);
  model->prepare({config_of(ir::OpKind::Pow, {f32({4, 8}), f32({4, 8})})});  // the fallback's
  EXPECT_EQ(probe->quiet_calls, 0u);
  EXPECT_EQ(model->stats().max_load_ratio, 0.0);
}

TEST(CalibrationKernel, TimesItsWork) {
  // Only that it measures something; whether it sees load is a timing question for bench/.
  CalibrationKernel kernel(2);
  EXPECT_GT(kernel.quiet_ms(), 0.0);
  EXPECT_GT(kernel.current_ms(), 0.0);
  EXPECT_EQ(kernel.name(), "calibration-chain-1;threads=2");
}

TEST_F(MeasuredCostModelTest, WorksWithoutACache) {
  auto log = std::make_shared<TimerLog>();
  MeasuredCostModel model(std::make_unique<FakeTimer>(log), std::make_unique<AnalyticCostModel>(),
                          nullptr);
  const OwnedOpConfig relu = sample_configs().front();
  EXPECT_DOUBLE_EQ(model.op_cost(relu.view()), 0.01 + 0.001 * 32);
  EXPECT_EQ(model.stats().measured, 1u);
  EXPECT_TRUE(model.wants_prepare());
  EXPECT_FALSE(AnalyticCostModel().wants_prepare());
}

TEST_F(MeasuredCostModelTest, CorruptCacheIsAClearError) {
  std::filesystem::create_directories(path_.parent_path());
  {
    std::ofstream out(path_);
    out << "this is not an SQLite database, just some text that is long enough to be a header "
           "and then some more text to fill a page";
  }
  try {
    CostCache cache(path_.string());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path_.string()), std::string::npos) << message;
    EXPECT_NE(message.find("not a Saturate cost cache"), std::string::npos) << message;
  }
}

TEST_F(MeasuredCostModelTest, EmptyFileIsANewCache) {
  std::filesystem::create_directories(path_.parent_path());
  { std::ofstream touch(path_); }
  CostCache cache(path_.string());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(CostCacheKey, NamesOutputsSoMultiOutputConfigurationsDiffer) {
  const OwnedOpConfig split =
      config_of(ir::OpKind::Split, {f32({4, 6})},
                {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{2, 4}}});
  EXPECT_EQ(cache_key(split.view()), "split(f32[4 6]) axis=1 sizes=[2 4] -> f32[4 2], f32[4 4]");
}

TEST(CostCachePath, EnvironmentOverridesTheDefault) {
  setenv("SATURATE_COST_CACHE", "/tmp/somewhere/costs.sqlite", 1);
  EXPECT_EQ(CostCache::default_path(), "/tmp/somewhere/costs.sqlite");
  unsetenv("SATURATE_COST_CACHE");
  EXPECT_NE(CostCache::default_path().find("saturate/costs.sqlite"), std::string::npos);
}
