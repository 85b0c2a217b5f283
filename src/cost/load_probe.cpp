#include "cost/load_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace saturate::cost {
namespace {

// One unit: about 0.1-0.2 ms of dependent multiply-adds on a current core. Dependent, so that
// neither the compiler nor the core can shorten it; no memory traffic, so that it runs at one
// speed in every build (the sanitizers do not instrument it).
constexpr int64_t kIterationsPerUnit = 100'000;
constexpr int kQuietRuns = 15;
constexpr int kQuietUnits = 4;
constexpr int kCurrentRuns = 3;
constexpr int kCurrentUnits = 40;

double chain(int64_t iterations, double seed) {
  double x = seed;
  for (int64_t i = 0; i < iterations; ++i) x = x * 0.999999 + 1e-7;
  return x;
}

}  // namespace

CalibrationKernel::CalibrationKernel(int threads) : threads_(std::max(threads, 1)) {}

std::string CalibrationKernel::name() const {
  return "calibration-chain-1;threads=" + std::to_string(threads_);
}

double CalibrationKernel::run_ms(int units) const {
  std::vector<double> seconds(static_cast<size_t>(threads_), 0.0);
  std::vector<double> sinks(static_cast<size_t>(threads_), 0.0);
  auto work = [&](size_t index) {
    // The seed is read at run time, so the chain cannot be folded into a constant.
    volatile double seed = 1.0 + static_cast<double>(index);
    const auto start = std::chrono::steady_clock::now();
    sinks[index] = chain(kIterationsPerUnit * units, seed);
    seconds[index] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < seconds.size(); ++t) helpers.emplace_back(work, t);
  work(0);
  for (std::thread& helper : helpers) helper.join();
  volatile double sink = 0;
  for (double value : sinks) sink = sink + value;
  return *std::max_element(seconds.begin(), seconds.end()) * 1000.0 / units;
}

double CalibrationKernel::quiet_ms() {
  double best = run_ms(kQuietUnits);
  for (int run = 1; run < kQuietRuns; ++run) best = std::min(best, run_ms(kQuietUnits));
  return best;
}

double CalibrationKernel::current_ms() {
  std::vector<double> runs;
  for (int run = 0; run < kCurrentRuns; ++run) runs.push_back(run_ms(kCurrentUnits));
  std::nth_element(runs.begin(), runs.begin() + kCurrentRuns / 2, runs.end());
  return runs[kCurrentRuns / 2];
}

}  // namespace saturate::cost
