#pragma once

// ONNX Runtime rewrites a model once more when it creates a session, and on its CPU provider one
// of those rewrites is a loss: SkipLayerNormFusion turns a residual Add and the
// LayerNormalization after it into com.microsoft.SkipLayerNormalization whenever both Add inputs
// are 3-d tensors of one static shape and the norm is the sum's only reader (a post-norm block:
// BERT, DistilBERT). That kernel (ONNX Runtime 1.32) normalizes each row with scalar code,
// measured 7x slower than Add plus LayerNormalization on a (1, 128, 768) tensor; BERT-base loses
// about 5 % of its run to it. The fusion looks for exactly that shape, so a norm written on the
// 2-d view of the sum, (B * S, D), and reshaped back computes the same values (the norm is over
// the last axis, and a reshape of a row-major tensor moves no data) without being fused.
//
// The guard writes a norm that way only where the cost model prices the fused kernel above the
// two it replaces: the measured ONNX Runtime model times both (so a runtime whose kernel is fast
// keeps the fusion), the analytic model never finds it slower. The whole-model latency check
// has the last word, as for every rewrite.

#include <cstddef>
#include <nlohmann/json.hpp>

#include "cost/cost_model.h"
#include "ir/graph.h"

namespace saturate::driver {

struct SessionFusionGuards {
  size_t candidates = 0;  // residual norms ONNX Runtime's SkipLayerNormFusion would fuse
  size_t guarded = 0;     // written on the 2-d view, so that it does not
  // Each distinct configuration's prices (ms): the fused kernel against Add plus LayerNorm.
  nlohmann::ordered_json prices = nlohmann::ordered_json::array();

  nlohmann::ordered_json to_json() const;
};

// Rewrites `graph` in place (a copy with the guarded norms respelled; names, weights and
// outputs unchanged) and says what it found and did.
SessionFusionGuards guard_session_fusions(ir::Graph& graph, const cost::CostModel& model);

}  // namespace saturate::driver
