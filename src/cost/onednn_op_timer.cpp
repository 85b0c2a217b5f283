#include "cost/onednn_op_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "cost/one_node_graph.h"
#include "ir/op_registry.h"
#include "runtime/interpreter.h"
#include "runtime/onednn_executor.h"
#include "support/error.h"

namespace saturate::cost {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

double seconds_of(std::chrono::steady_clock::duration duration) {
  return std::chrono::duration<double>(duration).count();
}

}  // namespace

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    return name;
  }
  return "unknown CPU";
}

OnednnOpTimer::OnednnOpTimer(OnednnTimerOptions options) : options_(options) {
  if (options_.repeats < 1) throw Error("the oneDNN timer needs at least one repeat");
  options_.warmup = std::max(options_.warmup, 0);
  options_.max_runs_per_sample = std::max(options_.max_runs_per_sample, 1);
}

std::string OnednnOpTimer::fingerprint() const {
  return "cpu=" + cpu_model_name() +
         ";threads=" + std::to_string(runtime::onednn_thread_count(options_.threads)) +
         ";onednn=" + runtime::onednn_version() + ";denormals=flushed";
}

int OnednnOpTimer::cpu_threads() const {
  return runtime::onednn_thread_count(options_.threads);
}

bool OnednnOpTimer::supports(const OpConfig& config) const {
  if (ir::op_info(config.op).is_leaf() || config.op == ir::OpKind::Noop) return false;
  return runtime::OnednnExecutor::runs_natively(config.op, config.attrs, config.inputs,
                                                config.outputs);
}

std::vector<double> OnednnOpTimer::time_ms(const std::vector<OwnedOpConfig>& configs) {
  std::vector<double> results;
  results.reserve(configs.size());
  for (const OwnedOpConfig& config : configs) {
    ir::Graph graph = [&] {
      try {
        return one_node_graph(config);
      } catch (const Error& error) {
        throw Error("cannot time " + describe(config.view()) + ": " + error.what());
      }
    }();
    const runtime::TensorMap feeds = runtime::random_feeds(graph, options_.seed);
    runtime::OnednnExecutor executor(graph, feeds, {.threads = options_.threads});
    executor.set_inputs(feeds);
    for (int i = 0; i < options_.warmup; ++i) executor.execute();
    // One more run decides how many runs make a sample long enough to measure.
    auto start = std::chrono::steady_clock::now();
    executor.execute();
    const double once_ms = 1e3 * seconds_of(std::chrono::steady_clock::now() - start);
    const int runs_per_sample =
        static_cast<int>(std::clamp(std::ceil(options_.min_sample_ms / std::max(once_ms, 1e-6)),
                                    1.0, static_cast<double>(options_.max_runs_per_sample)));
    std::vector<double> samples;
    for (int repeat = 0; repeat < options_.repeats; ++repeat) {
      start = std::chrono::steady_clock::now();
      for (int run = 0; run < runs_per_sample; ++run) executor.execute();
      samples.push_back(1e3 * seconds_of(std::chrono::steady_clock::now() - start) /
                        runs_per_sample);
    }
    results.push_back(median(std::move(samples)));
  }
  return results;
}

}  // namespace saturate::cost
