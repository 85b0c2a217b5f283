// The session fusion guard: residual norms that ONNX Runtime's SkipLayerNormFusion would fuse are
// found exactly where that fusion applies, respelled on the 2-d view only where the cost model
// prices the fused kernel higher, and the respelled graph computes the same values.
#include <gtest/gtest.h>

#include "cost/analytic_cost_model.h"
#include "driver/session_fusion_guard.h"
#include "ir/graph_builder.h"
#include "runtime/graph_comparison.h"

namespace saturate::driver {
namespace {

using ir::OpKind;
using ir::ValueRef;

// The analytic model, except that SkipLayerNorm costs `factor` times as much (what ONNX
// Runtime's CPU kernel measures, about 7).
class SlowSkipLayerNorm final : public cost::CostModel {
 public:
  explicit SlowSkipLayerNorm(double factor) : factor_(factor) {}
  std::string name() const override { return "slow-skip-layer-norm"; }
  double op_cost(const cost::OpConfig& config) const override {
    double base = analytic_.op_cost(config);
    return config.op == OpKind::SkipLayerNorm ? factor_ * base : base;
  }

 private:
  cost::AnalyticCostModel analytic_;
  double factor_;
};

struct Block {
  bool pre_norm = false;   // the sum also feeds the next residual add
  ir::Dims dims{2, 5, 8};  // x and skip
  ir::Dims skip_dims{};    // empty: dims
  int64_t axis = -1;
};

// x + skip, a layernorm over it, then tanh (and, pre-norm, the sum added back).
ir::Graph residual_block(const Block& block) {
  ir::GraphBuilder b("block");
  ValueRef x = b.input("x", block.dims);
  ValueRef skip = b.input("skip", block.skip_dims.empty() ? block.dims : block.skip_dims);
  ValueRef sum = b.add(x, skip);
  const ir::Dims params(block.dims.end() - (block.axis == -1 ? 1 : 2), block.dims.end());
  ValueRef norm = b.apply(OpKind::LayerNorm, {sum, b.weight(params, "g"), b.weight(params, "b")},
                          {{"axis", block.axis}});
  ValueRef out = b.tanh(norm);
  if (block.pre_norm) out = b.ewadd(sum, out);
  b.output("y", out);
  return std::move(b).finish();
}

TEST(SessionFusionGuard, RespellsPostNormResidualsOnTheRowViewWhenTheFusedKernelIsSlower) {
  const ir::Graph original = residual_block({});
  ir::Graph graph = original;
  SessionFusionGuards guards = guard_session_fusions(graph, SlowSkipLayerNorm(7));
  EXPECT_EQ(guards.candidates, 1u);
  EXPECT_EQ(guards.guarded, 1u);
  ASSERT_EQ(guards.prices.size(), 1u);
  EXPECT_GT(guards.prices[0]["skip_layer_norm_ms"].get<double>(),
            guards.prices[0]["add_and_layernorm_ms"].get<double>());
  EXPECT_EQ(graph.op_histogram(), (std::map<std::string, int>{
                                      {"add", 1}, {"layernorm", 1}, {"reshape", 2}, {"tanh", 1}}));
  // The norm reads the (10, 8) view and is reshaped back under its own name.
  const ir::Node& norm = graph.node(graph.nodes_of(OpKind::LayerNorm).front());
  EXPECT_EQ(graph.type(norm.inputs[0]).dims, (ir::Dims{10, 8}));
  EXPECT_TRUE(graph.find_value(original.node(original.nodes_of(OpKind::LayerNorm).front()).name()));
  runtime::GraphComparison comparison = runtime::compare_graphs(original, graph, 3);
  EXPECT_TRUE(comparison.finite);
  EXPECT_LT(comparison.max_relative_error, 1e-12);
}

TEST(SessionFusionGuard, KeepsTheFusionWhereTheFusedKernelIsCheaper) {
  ir::Graph graph = residual_block({});
  SessionFusionGuards guards = guard_session_fusions(graph, cost::AnalyticCostModel());
  EXPECT_EQ(guards.candidates, 1u);
  EXPECT_EQ(guards.guarded, 0u);
  EXPECT_TRUE(graph == residual_block({}));
}

TEST(SessionFusionGuard, FindsOnlyWhatTheFusionMatches) {
  // A pre-norm sum has two readers; a 2-d sum, a broadcast skip and a norm over two axes are
  // not what SkipLayerNormFusion matches.
  for (const Block& block : {Block{.pre_norm = true}, Block{.dims = {10, 8}},
                             Block{.skip_dims = {1, 5, 8}}, Block{.axis = -2}}) {
    ir::Graph graph = residual_block(block);
    SessionFusionGuards guards = guard_session_fusions(graph, SlowSkipLayerNorm(7));
    EXPECT_EQ(guards.candidates, 0u);
    EXPECT_TRUE(graph == residual_block(block));
  }
}

}  // namespace
}  // namespace saturate::driver
