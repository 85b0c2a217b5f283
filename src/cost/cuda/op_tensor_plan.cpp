#include "cost/cuda/op_tensor_plan.h"

namespace saturate::cost::gpu {
namespace {

constexpr size_t kMaxAxes = 5;
constexpr size_t kMinAxes = 4;  // cuDNN tensor descriptors have at least 4 axes

ir::Dims left_padded(const ir::Dims& dims, size_t rank) {
  ir::Dims padded(rank - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return padded;
}

}  // namespace

std::optional<OpTensorPlan> plan_op_tensor(const ir::Dims& a, const ir::Dims& b,
                                           const ir::Dims& out) {
  if (a.size() > out.size() || b.size() > out.size()) return std::nullopt;
  OpTensorPlan plan;
  const ir::Dims padded_a = left_padded(a, out.size());
  const ir::Dims padded_b = left_padded(b, out.size());
  ir::Dims other;
  if (padded_a == out) {
    other = padded_b;
  } else if (padded_b == out) {
    other = padded_a;
    plan.swap_operands = true;
  } else {
    return std::nullopt;
  }

  // Runs of axes where `other` is kept (equal to out) or broadcast (1 where out is not).
  ir::Dims full;
  ir::Dims broadcast;
  bool last_kept = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 1) continue;
    const bool kept = other[i] == out[i];
    if (!kept && other[i] != 1) return std::nullopt;
    if (!full.empty() && kept == last_kept) {
      full.back() *= out[i];
      if (kept) broadcast.back() *= out[i];
    } else {
      full.push_back(out[i]);
      broadcast.push_back(kept ? out[i] : 1);
    }
    last_kept = kept;
  }
  if (full.size() > kMaxAxes) return std::nullopt;
  const size_t rank = full.size() < kMinAxes ? kMinAxes : full.size();
  plan.full = left_padded(full, rank);
  plan.broadcast = left_padded(broadcast, rank);
  return plan;
}

}  // namespace saturate::cost::gpu
