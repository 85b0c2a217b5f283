#pragma once

#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::cost {

// One operator configuration: what a cost model prices. Two nodes with equal configurations
// cost the same, which is what lets measured models cache by configuration.
struct OpConfig {
  ir::OpKind op;
  const ir::Attributes& attrs;
  const std::vector<ir::TensorType>& inputs;
  const std::vector<ir::TensorType>& outputs;
};

// Prices one operator configuration in milliseconds of run time.
class CostModel {
 public:
  virtual ~CostModel() = default;
  // Short identifier printed in reports ("analytic", ...).
  virtual std::string name() const = 0;
  virtual double op_cost(const OpConfig& config) const = 0;
};

}  // namespace saturate::cost
