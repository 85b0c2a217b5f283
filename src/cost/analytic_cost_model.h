#pragma once

#include "cost/cost_model.h"

namespace saturate::cost {

// The machine an analytic estimate assumes. Defaults describe one core of a recent x86 server
// running vectorized float32 kernels (see docs/COST_MODEL.md for where the numbers come from).
struct MachineParameters {
  double peak_gflops = 100.0;         // sustained float32 GFLOP/s of contraction kernels
  double elementwise_gflops = 25.0;   // sustained GFLOP/s of element-wise / reduction work
  double memory_gbytes_per_s = 20.0;  // sustained DRAM bandwidth, GB/s
  double launch_overhead_ms = 0.002;  // fixed cost of dispatching one operator
};

// Work done by one operator configuration.
struct OpWork {
  double flops = 0;  // floating-point operations (a multiply-add counts 2)
  double bytes = 0;  // bytes read (inputs) plus written (outputs), float32 = 4 bytes
};

// The three terms of one roofline estimate, in milliseconds.
struct Roofline {
  double launch_ms = 0;   // fixed dispatch cost
  double compute_ms = 0;  // flops / throughput of the operator's kind of kernel
  double memory_ms = 0;   // bytes / bandwidth
  double total() const { return launch_ms + (compute_ms > memory_ms ? compute_ms : memory_ms); }
  bool compute_bound() const { return compute_ms > memory_ms; }
};

// Roofline estimate: cost = launch overhead + max(flops / peak, bytes / bandwidth).
class AnalyticCostModel : public CostModel {
 public:
  // Throws saturate::Error when a throughput is not positive or the overhead is negative.
  explicit AnalyticCostModel(MachineParameters machine = {});
  std::string name() const override { return "analytic"; }
  double op_cost(const OpConfig& config) const override;

  // The terms op_cost adds up; all zero for leaves and noop, which are free.
  Roofline roofline(const OpConfig& config) const;
  static OpWork work(const OpConfig& config);
  const MachineParameters& machine() const { return machine_; }

 private:
  MachineParameters machine_;
};

}  // namespace saturate::cost
