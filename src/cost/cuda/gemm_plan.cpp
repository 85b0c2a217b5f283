#include "cost/cuda/gemm_plan.h"

#include <algorithm>
#include <limits>

namespace saturate::cost::gpu {
namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int>::max();

// The batch axes of an operand, left-padded with 1s to `rank` axes.
ir::Dims padded_batch(const ir::Dims& dims, size_t rank) {
  ir::Dims batch(rank - (dims.size() - 2), 1);
  batch.insert(batch.end(), dims.begin(), dims.end() - 2);
  return batch;
}

int64_t product(const ir::Dims& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

}  // namespace

std::optional<GemmPlan> plan_gemm(const ir::Dims& a, const ir::Dims& b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  GemmPlan plan;
  plan.m = a[a.size() - 2];
  plan.k = a[a.size() - 1];
  plan.n = b[b.size() - 1];
  if (b[b.size() - 2] != plan.k) return std::nullopt;

  const size_t batch_rank = std::max(a.size(), b.size()) - 2;
  const ir::Dims batch_a = padded_batch(a, batch_rank);
  const ir::Dims batch_b = padded_batch(b, batch_rank);
  ir::Dims batch_out(batch_rank);
  for (size_t i = 0; i < batch_rank; ++i) {
    if (batch_a[i] != batch_b[i] && batch_a[i] != 1 && batch_b[i] != 1) return std::nullopt;
    batch_out[i] = std::max(batch_a[i], batch_b[i]);
  }
  plan.batch = product(batch_out);
  const bool a_shared = product(batch_a) == 1;
  const bool b_shared = product(batch_b) == 1;
  if ((!a_shared && batch_a != batch_out) || (!b_shared && batch_b != batch_out)) {
    return std::nullopt;
  }
  plan.stride_a = a_shared ? 0 : plan.m * plan.k;
  plan.stride_b = b_shared ? 0 : plan.k * plan.n;
  plan.stride_c = plan.m * plan.n;
  if (plan.batch > 1 && b_shared && !a_shared) {
    // Consecutive row-major A matrices and C matrices are one taller matrix each.
    plan.m *= plan.batch;
    plan.batch = 1;
    plan.stride_a = plan.m * plan.k;
    plan.stride_c = plan.m * plan.n;
  }
  if (plan.batch == 1) {
    plan.stride_a = plan.m * plan.k;
    plan.stride_b = plan.k * plan.n;
  }
  for (int64_t size : {plan.m, plan.n, plan.k, plan.batch}) {
    if (size <= 0 || size > kMaxInt) return std::nullopt;
  }
  return plan;
}

}  // namespace saturate::cost::gpu
