#pragma once

// Small building blocks shared by the benchmark models.
#include <cstdint>

#include "ir/graph_builder.h"
#include "models/model_registry.h"

namespace saturate::models {

// A size in the full model, or full / divisor (at least 1) in the reduced variant.
int64_t scaled(int64_t full, int64_t divisor, const ModelOptions& options);

// Average pooling over the whole feature map: (N, C, H, W) -> (N, C, 1, 1).
ir::ValueRef global_avgpool(ir::GraphBuilder& builder, ir::ValueRef x);

// (N, C, H, W) -> (N, C * H * W).
ir::ValueRef flatten(ir::GraphBuilder& builder, ir::ValueRef x);

// A fully connected layer on a (rows, in) matrix: matmul with a fresh (in, out) weight, then a
// bias add broadcasting a fresh (out) weight.
ir::ValueRef dense(ir::GraphBuilder& builder, ir::ValueRef x, int64_t out_features);

// Multi-head self-attention on a (sequence, model) input, unfused as a framework writes it:
// q, k, v projections, heads split by reshape + transpose (keys transposed to (h, d, s)),
// matmul, divide by sqrt(d_head), softmax, matmul, heads joined, output projection.
ir::ValueRef self_attention(ir::GraphBuilder& builder, ir::ValueRef x, int64_t heads);

}  // namespace saturate::models
