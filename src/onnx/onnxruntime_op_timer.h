#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost/op_timer.h"
#include "onnx/onnxruntime_helper.h"

namespace saturate::onnx {

struct OnnxruntimeTimerOptions {
  std::string python = "python3";  // the interpreter that has onnxruntime installed
  std::string python_dir;          // where the `saturate` package is (PYTHONPATH)
  int threads = 1;                 // ORT intra-op threads, as deployed
  int warmup = 2;
  int repeats = 7;
  double min_run_ms = 0.2;  // each sample lasts at least this long (tiny operators)
  uint64_t seed = 0;        // of the random weights in the one-operator models
  // The helper process to time with, shared with the run's other ONNX Runtime checks; null:
  // the timer starts its own from `python` and `python_dir`.
  std::shared_ptr<OnnxruntimeHelper> helper;
};

// Times operator configurations in ONNX Runtime (CPU execution provider), so that a model is
// optimized for the runtime it is deployed on: each configuration is exported as a one-node
// ONNX model (its parameters as initializers, as in a real model), sent as bytes to the
// long-lived helper process of onnxruntime_helper.h and timed there.
class OnnxruntimeOpTimer : public cost::OpTimer {
 public:
  // Starts the helper and asks for its fingerprint. Throws saturate::Error when Python or
  // onnxruntime is missing.
  explicit OnnxruntimeOpTimer(OnnxruntimeTimerOptions options);
  ~OnnxruntimeOpTimer() override;

  std::string backend() const override { return "onnxruntime"; }
  // "onnxruntime <version>; <CPU model>; <n> threads".
  std::string fingerprint() const override { return fingerprint_; }
  int cpu_threads() const override { return options_.threads; }
  // Every operator the exporter writes, except opaque ones (their cost is the fallback's).
  bool supports(const cost::OpConfig& config) const override;
  std::vector<double> time_ms(const std::vector<cost::OwnedOpConfig>& configs) override;
  int repeats() const override { return options_.repeats; }

 private:
  OnnxruntimeTimerOptions options_;
  std::shared_ptr<OnnxruntimeHelper> helper_;
  std::string fingerprint_;
};

}  // namespace saturate::onnx
