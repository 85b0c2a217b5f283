#pragma once

#include <cstdint>
#include <optional>

#include "ir/tensor_type.h"

namespace saturate::cost::gpu {

// A batched row-major matmul [batch..., M, K] x [batch..., K, N] as one strided-batched GEMM.
// Strides count elements between consecutive matrices of the batch; 0 reuses one matrix for
// every batch entry (a broadcast operand).
struct GemmPlan {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t batch = 1;
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t stride_c = 0;
  bool operator==(const GemmPlan&) const = default;
};

// The plan for the IR's matmul of operands with dims a and b, or nullopt where the batch
// broadcast is not "simple": each operand's batch axes must either equal the output's (after
// left-padding with 1s) or hold a single matrix. When b is one matrix shared by the whole batch,
// the batch folds into M (one larger GEMM), as frameworks do for x [B S D] x w [D D]. Also
// nullopt when a size does not fit cuBLAS's int arguments.
std::optional<GemmPlan> plan_gemm(const ir::Dims& a, const ir::Dims& b);

}  // namespace saturate::cost::gpu
