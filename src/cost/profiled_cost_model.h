#pragma once

// Pricing graphs with symbolic dimensions (ir/symbolic_dim.h): a configuration whose shapes
// hold symbols (`matmul(f32[batch sequence 768], f32[768 768])`) has no single price, so it is
// priced at named concrete bindings of the symbols ("profiles": batch=1,sequence=128, ...) and
// the prices are combined by weight. docs/COST_MODEL.md, "Profiles", says more.
#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "ir/symbolic_dim.h"

namespace saturate::cost {

// One concrete binding of the symbols (symbol name -> size) and its relative weight.
struct WeightedBinding {
  ir::SymbolBinding sizes;
  double weight = 1;
};

// The configuration at a binding: every symbolic dimension of its types and integer attributes
// replaced by its value, slice's "to the end" bound (INT64_MAX) on an axis the binding sizes
// replaced by that size, and an opaque operator's output_types text rewritten with the bound
// types, so that the result is what a concrete graph of the same operator holds. A static
// configuration comes back unchanged. Throws saturate::Error naming the configuration when a
// symbol is unbound or a dimension is negative or not an integer at the binding.
OwnedOpConfig bind_config(const OpConfig& config, const ir::SymbolBinding& sizes);

// A cost model over another one that prices configurations with symbolic dimensions at a list
// of weighted bindings: op_cost of such a configuration is sum_i w_i * inner(config at binding
// i), the weights normalized to sum to 1 (a weighted mean, so that a static configuration,
// whose price is the same at every binding, costs what the inner model says, and static and
// symbolic nodes of one graph are priced on one scale). A configuration without symbolic
// dimensions goes to the inner model as it is. The inner model never sees a symbolic shape.
class ProfiledCostModel : public CostModel {
 public:
  // Throws saturate::Error when `inner` is null, `profiles` is empty, or a weight is not a
  // positive finite number.
  ProfiledCostModel(std::unique_ptr<CostModel> inner, std::vector<WeightedBinding> profiles);

  // "analytic at 2 profiles", "onnxruntime at 1 profile".
  std::string name() const override;
  double op_cost(const OpConfig& config) const override;
  bool wants_prepare() const override { return inner_->wants_prepare(); }
  // Hands the inner model, in one batch, every configuration as it will be priced: static ones
  // as given, symbolic ones bound at every profile.
  void prepare(const std::vector<OwnedOpConfig>& configs) const override;
  void set_measurement_deadline(Deadline deadline) const override {
    inner_->set_measurement_deadline(deadline);
  }

  // The wrapped model (a report reads a measured model's statistics from it).
  const CostModel& inner() const { return *inner_; }
  // The bindings with their weights as given.
  const std::vector<WeightedBinding>& profiles() const { return profiles_; }
  // The weights normalized to sum to 1, in the order of profiles().
  const std::vector<double>& shares() const { return shares_; }

 private:
  std::unique_ptr<CostModel> inner_;
  std::vector<WeightedBinding> profiles_;
  std::vector<double> shares_;
};

// The model under any ProfiledCostModel wrappers (the model itself when it is none).
const CostModel& unwrap_profiles(const CostModel& model);

}  // namespace saturate::cost
