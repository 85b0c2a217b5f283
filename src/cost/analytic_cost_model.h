#pragma once

#include "cost/cost_model.h"

namespace saturate::cost {

// The machine an analytic estimate assumes. Defaults describe one core of a recent x86 server
// running vectorized float32 kernels (see docs/COST_MODEL.md for where the numbers come from).
struct MachineParameters {
  double peak_gflops = 100.0;          // sustained float32 GFLOP/s of contraction kernels
  double elementwise_gflops = 25.0;    // sustained GFLOP/s of element-wise / reduction work
  double memory_gbytes_per_s = 20.0;   // sustained DRAM bandwidth, GB/s
  double launch_overhead_ms = 0.002;   // fixed cost of dispatching one operator
};

// Work done by one operator configuration.
struct OpWork {
  double flops = 0;  // floating-point operations (a multiply-add counts 2)
  double bytes = 0;  // bytes read (inputs) plus written (outputs), float32 = 4 bytes
};

// Roofline estimate: cost = launch overhead + max(flops / peak, bytes / bandwidth).
class AnalyticCostModel : public CostModel {
 public:
  explicit AnalyticCostModel(MachineParameters machine = {}) : machine_(machine) {}
  std::string name() const override { return "analytic"; }
  double op_cost(const OpConfig& config) const override;

  static OpWork work(const OpConfig& config);
  const MachineParameters& machine() const { return machine_; }

 private:
  MachineParameters machine_;
};

}  // namespace saturate::cost
