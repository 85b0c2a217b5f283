#pragma once

#include <optional>

#include "ir/tensor_type.h"

namespace saturate::cost::gpu {

// A binary element-wise operator (ewadd, ewmul, add, mul, sub) as one cudnnOpTensor call,
// C = op(alpha1 * A, alpha2 * B). cuDNN requires A to have C's shape and lets each axis of B be
// either C's size or 1, on tensors of at most 5 axes.
struct OpTensorPlan {
  // The IR's b has the output's shape and a is the broadcast one: they trade places (sub then
  // negates the other operand: a - b = -b + a).
  bool swap_operands = false;
  ir::Dims full;       // dims of A and C after merging axes, 4 or 5 entries
  ir::Dims broadcast;  // dims of B, each equal to full's or 1
  bool operator==(const OpTensorPlan&) const = default;
};

// The plan for operands a, b with (broadcast) output dims `out`, or nullopt when neither operand
// has the output's shape or the broadcast pattern needs more than 5 axes. Axes of size 1 are
// dropped and neighbouring axes that B either both keeps or both broadcasts are merged, so
// [64 128 1024] + [1024] becomes [1 1 8192 1024] + [1 1 1 1024].
std::optional<OpTensorPlan> plan_op_tensor(const ir::Dims& a, const ir::Dims& b,
                                           const ir::Dims& out);

}  // namespace saturate::cost::gpu
