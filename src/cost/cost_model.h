#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"
#include "support/deadline.h"

namespace saturate::cost {

// One operator configuration: what a cost model prices. Two nodes with equal configurations
// cost the same, which is what lets measured models cache by configuration.
struct OpConfig {
  ir::OpKind op;
  const ir::Attributes& attrs;
  const std::vector<ir::TensorType>& inputs;
  const std::vector<ir::TensorType>& outputs;
};

// An operator configuration that owns its parts (OpConfig only refers to a node's), so that
// configurations can be collected, deduplicated and measured in a batch.
struct OwnedOpConfig {
  ir::OpKind op;
  ir::Attributes attrs;
  std::vector<ir::TensorType> inputs;
  std::vector<ir::TensorType> outputs;

  OpConfig view() const { return OpConfig{op, attrs, inputs, outputs}; }
  static OwnedOpConfig from(const OpConfig& config) {
    return OwnedOpConfig{config.op, config.attrs, config.inputs, config.outputs};
  }
};

// Canonical one-line text of a configuration, e.g.
// "conv2d(f32[1 64 56 56], f32[64 64 3 3]) activation=relu padding=same stride_h=1 stride_w=1".
// Equal configurations give equal text, so measured models can use it as a cache key and
// reports can name what they priced.
std::string describe(const OpConfig& config);

// A reshape to its input's own shape: export writes no node for it, so it costs nothing.
inline bool is_identity_reshape(const OpConfig& config) {
  return config.op == ir::OpKind::Reshape && config.inputs.size() == 1 &&
         config.outputs.size() == 1 && config.inputs[0].dims == config.outputs[0].dims;
}

// Whether a configuration holds a symbolic dimension (ir/symbolic_dim.h) in an input or output
// type or in an integer attribute (a reshape's target shape). Such a configuration has no price
// until its symbols are bound: ProfiledCostModel (profiled_cost_model.h) binds them.
bool has_symbolic_shape(const OpConfig& config);

// Throws saturate::Error "cost model given a symbolic shape ..." naming the model and the
// configuration when it has one. Every model that reads sizes calls it before doing arithmetic
// on them (a symbolic dim is an interned handle, not a size).
void require_concrete_shapes(const OpConfig& config, std::string_view model);

// Prices one operator configuration in milliseconds of run time.
class CostModel {
 public:
  virtual ~CostModel() = default;
  // Short identifier printed in reports ("analytic", ...).
  virtual std::string name() const = 0;
  virtual double op_cost(const OpConfig& config) const = 0;
  // Whether the model wants to see, before pricing, every configuration a search may ask about
  // (a measured model times the ones it lacks in one batch). Callers skip collecting them when
  // it does not.
  virtual bool wants_prepare() const { return false; }
  // Announces configurations about to be priced (all e-nodes of an e-graph, before extraction).
  // The default does nothing; op_cost must work without it.
  virtual void prepare(const std::vector<OwnedOpConfig>& /*configs*/) const {}
  // A model that measures stops timing at `deadline` and prices what is left by its fallback
  // (and says so in its statistics); one that prices by formula ignores it.
  virtual void set_measurement_deadline(Deadline /*deadline*/) const {}
};

}  // namespace saturate::cost
