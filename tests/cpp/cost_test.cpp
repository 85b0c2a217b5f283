// The analytic cost model and graph costing: hand-computed work, the roofline, folding.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "ir/graph_builder.h"
#include "ir/op_registry.h"
#include "ir/weight_only.h"
#include "support/error.h"

using namespace saturate::ir;
using namespace saturate::cost;

namespace {

// One operator configuration with its storage: OpConfig only refers to its parts.
struct Config {
  OpKind op;
  Attributes attrs;
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;

  Config(OpKind kind, std::vector<TensorType> in, const Attributes& given = {})
      : op(kind),
        attrs(complete_attributes(op_info(kind), given)),
        inputs(std::move(in)),
        outputs(infer_types(kind, inputs, attrs)) {}
  OpConfig view() const { return {op, attrs, inputs, outputs}; }
  OpWork work() const { return AnalyticCostModel::work(view()); }
};

TensorType f32(Dims dims) {
  return {DType::F32, std::move(dims)};
}

Attributes window(int64_t kh, int64_t kw, int64_t stride, Padding padding) {
  return {{"kernel_h", kh},
          {"kernel_w", kw},
          {"stride_h", stride},
          {"stride_w", stride},
          {"padding", static_cast<int64_t>(padding)}};
}

// The formula of docs/COST_MODEL.md, written out independently of the implementation.
double roofline_ms(const OpWork& w, double gflops, const MachineParameters& m) {
  return m.launch_overhead_ms +
         std::max(w.flops / (gflops * 1e6), w.bytes / (m.memory_gbytes_per_s * 1e6));
}

}  // namespace

TEST(AnalyticWork, MatMul) {
  // [64 128] x [128 256]: 2 * M * N * K flops, every operand read once and the result written.
  OpWork w = Config(OpKind::MatMul, {f32({64, 128}), f32({128, 256})}).work();
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 64 * 256 * 128);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (64 * 128 + 128 * 256 + 64 * 256));
  // A fused relu adds one flop per output element and no traffic.
  OpWork relu = Config(OpKind::MatMul, {f32({64, 128}), f32({128, 256})},
                       {{"activation", static_cast<int64_t>(Activation::Relu)}})
                    .work();
  EXPECT_DOUBLE_EQ(relu.flops, 2.0 * 64 * 256 * 128 + 64 * 256);
  EXPECT_DOUBLE_EQ(relu.bytes, w.bytes);
}

TEST(AnalyticWork, BatchedMatMul) {
  OpWork w = Config(OpKind::MatMul, {f32({4, 8, 16}), f32({4, 16, 32})}).work();
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 4 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (4 * 8 * 16 + 4 * 16 * 32 + 4 * 8 * 32));
  // A broadcast right operand is read once but multiplied into every batch.
  OpWork broadcast = Config(OpKind::MatMul, {f32({3, 8, 16}), f32({16, 32})}).work();
  EXPECT_DOUBLE_EQ(broadcast.flops, 2.0 * 3 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(broadcast.bytes, 4.0 * (3 * 8 * 16 + 16 * 32 + 3 * 8 * 32));
}

TEST(AnalyticWork, GroupedStridedSameConv) {
  // 8 input channels, weight dim 1 = 2, so 4 groups; stride 2 SAME on 16x16 gives 8x8.
  Config conv(OpKind::Conv2d, {f32({1, 8, 16, 16}), f32({16, 2, 3, 3})},
              {{"stride_h", int64_t{2}}, {"stride_w", int64_t{2}}});
  ASSERT_EQ(conv.outputs[0].dims, (Dims{1, 16, 8, 8}));
  OpWork w = conv.work();
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 1 * 16 * 8 * 8 * (8 / 4) * 3 * 3);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (1 * 8 * 16 * 16 + 16 * 2 * 3 * 3 + 1 * 16 * 8 * 8));
}

TEST(AnalyticWork, ValidConvWithActivation) {
  Config conv(OpKind::Conv2d, {f32({2, 3, 10, 10}), f32({4, 3, 3, 3})},
              {{"padding", static_cast<int64_t>(Padding::Valid)},
               {"activation", static_cast<int64_t>(Activation::Relu)}});
  ASSERT_EQ(conv.outputs[0].dims, (Dims{2, 4, 8, 8}));
  OpWork w = conv.work();
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 2 * 4 * 8 * 8 * 3 * 3 * 3 + 2 * 4 * 8 * 8);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (2 * 3 * 10 * 10 + 4 * 3 * 3 * 3 + 2 * 4 * 8 * 8));
}

TEST(AnalyticWork, Pools) {
  // Max pool: one comparison per window element per output.
  Config max(OpKind::PoolMax, {f32({1, 4, 8, 8})}, window(2, 2, 2, Padding::Valid));
  ASSERT_EQ(max.outputs[0].dims, (Dims{1, 4, 4, 4}));
  EXPECT_DOUBLE_EQ(max.work().flops, 64.0 * 2 * 2);
  EXPECT_DOUBLE_EQ(max.work().bytes, 4.0 * (256 + 64));
  // Average pool: the same adds plus one scaling per output.
  Config avg(OpKind::PoolAvg, {f32({1, 2, 5, 5})}, window(3, 3, 1, Padding::Same));
  ASSERT_EQ(avg.outputs[0].dims, (Dims{1, 2, 5, 5}));
  EXPECT_DOUBLE_EQ(avg.work().flops, 50.0 * (3 * 3 + 1));
  EXPECT_DOUBLE_EQ(avg.work().bytes, 4.0 * (50 + 50));
}

TEST(AnalyticWork, ElementwiseAdd) {
  // A broadcast bias is read once: bytes count the tensors as stored.
  OpWork w = Config(OpKind::Add, {f32({1024, 1024}), f32({1024})}).work();
  EXPECT_DOUBLE_EQ(w.flops, 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (1024 * 1024 + 1024 + 1024 * 1024));
}

TEST(AnalyticWork, DoublePrecisionMovesEightBytesPerElement) {
  TensorType a{DType::F64, {32, 32}};
  OpWork w = Config(OpKind::EwMul, {a, a}).work();
  EXPECT_DOUBLE_EQ(w.bytes, 8.0 * 3 * 32 * 32);
}

TEST(AnalyticWork, TranscendentalsCostMoreThanAdd) {
  const std::vector<TensorType> x = {f32({100})};
  double add = Config(OpKind::EwAdd, {f32({100}), f32({100})}).work().flops;
  EXPECT_DOUBLE_EQ(add, 100.0);
  EXPECT_DOUBLE_EQ(Config(OpKind::Relu, x).work().flops, add);
  for (OpKind op :
       {OpKind::Exp, OpKind::Erf, OpKind::Gelu, OpKind::Tanh, OpKind::Sigmoid, OpKind::Softmax}) {
    EXPECT_GE(Config(op, x).work().flops, 10 * add) << to_string(op);
  }
  EXPECT_GT(Config(OpKind::Gelu, x).work().flops, Config(OpKind::Erf, x).work().flops);
  EXPECT_GT(Config(OpKind::Div, {f32({100}), f32({100})}).work().flops, add);
}

TEST(AnalyticWork, LayoutOperatorsOnlyMoveBytes) {
  OpWork t = Config(OpKind::Transpose, {f32({8, 16})}, {{"perm", Dims{1, 0}}}).work();
  EXPECT_EQ(t.flops, 0);
  EXPECT_DOUBLE_EQ(t.bytes, 4.0 * 2 * 8 * 16);
  OpWork c = Config(OpKind::Concat, {f32({2, 3}), f32({2, 5})}, {{"axis", int64_t{1}}}).work();
  EXPECT_EQ(c.flops, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * (6 + 10 + 16));
  // Enlarge reads only the kernel; the reference contributes its shape.
  OpWork e = Config(OpKind::Enlarge, {f32({8, 4, 1, 1}), f32({8, 4, 3, 3})}).work();
  EXPECT_DOUBLE_EQ(e.bytes, 4.0 * (32 + 288));
  // Reshape is a view: nothing computed, nothing moved, only the dispatch is paid.
  Config reshape(OpKind::Reshape, {f32({2, 3, 4})}, {{"shape", Dims{6, 4}}});
  EXPECT_EQ(reshape.work().flops, 0);
  EXPECT_EQ(reshape.work().bytes, 0);
  AnalyticCostModel model;
  EXPECT_DOUBLE_EQ(model.op_cost(reshape.view()), model.machine().launch_overhead_ms);
  // The parts of a split are views too, read in place: no launch at all.
  Config split(OpKind::Split, {f32({4, 6})}, {{"axis", int64_t{1}}, {"sizes", Dims{2, 4}}});
  EXPECT_EQ(split.work().bytes, 0);
  EXPECT_DOUBLE_EQ(model.op_cost(split.view()), 0);
}

TEST(AnalyticCost, LeavesAndNoopAreFree) {
  AnalyticCostModel model;
  Config input(OpKind::Input, {}, {{"shape", Dims{1024, 1024}}});
  Config weight(OpKind::Weight, {}, {{"shape", Dims{1024, 1024}}});
  Config constant(OpKind::Constant, {}, {{"shape", Dims{4}}, {"value", 1.0}});
  Config noop(OpKind::Noop, {f32({1024, 1024}), f32({1024})});
  for (const Config* c : {&input, &weight, &constant, &noop}) {
    EXPECT_EQ(model.op_cost(c->view()), 0) << to_string(c->op);
  }
}

TEST(AnalyticCost, MonotoneInSize) {
  AnalyticCostModel model;
  double previous_matmul = 0;
  double previous_add = 0;
  for (int64_t n : {16, 64, 256, 1024}) {
    double matmul = model.op_cost(Config(OpKind::MatMul, {f32({n, n}), f32({n, n})}).view());
    double add = model.op_cost(Config(OpKind::EwAdd, {f32({n, n}), f32({n, n})}).view());
    EXPECT_GT(matmul, previous_matmul) << n;
    EXPECT_GT(add, previous_add) << n;
    // Same bytes, more flops: never cheaper (equal at n = 16, where both are memory-bound).
    EXPECT_GE(matmul, add) << n;
    previous_matmul = matmul;
    previous_add = add;
  }
  double narrow =
      model.op_cost(Config(OpKind::Conv2d, {f32({1, 64, 28, 28}), f32({64, 64, 3, 3})}).view());
  double wide =
      model.op_cost(Config(OpKind::Conv2d, {f32({1, 64, 28, 28}), f32({128, 64, 3, 3})}).view());
  EXPECT_GT(wide, narrow);
}

TEST(AnalyticCost, BigMatMulIsComputeBoundAndAddIsMemoryBound) {
  AnalyticCostModel model;
  const MachineParameters& m = model.machine();
  Config matmul(OpKind::MatMul, {f32({1024, 1024}), f32({1024, 1024})});
  Roofline r = model.roofline(matmul.view());
  EXPECT_TRUE(r.compute_bound());
  // 2^31 flops at 100 GFLOP/s against 12 MiB at 20 GB/s.
  EXPECT_DOUBLE_EQ(r.compute_ms, 2.0 * 1024 * 1024 * 1024 / (m.peak_gflops * 1e6));
  EXPECT_DOUBLE_EQ(r.memory_ms, 4.0 * 3 * 1024 * 1024 / (m.memory_gbytes_per_s * 1e6));
  EXPECT_DOUBLE_EQ(model.op_cost(matmul.view()), m.launch_overhead_ms + r.compute_ms);

  Config add(OpKind::EwAdd, {f32({1024, 1024}), f32({1024, 1024})});
  Roofline a = model.roofline(add.view());
  EXPECT_FALSE(a.compute_bound());
  EXPECT_DOUBLE_EQ(a.compute_ms, 1024.0 * 1024 / (m.elementwise_gflops * 1e6));
  EXPECT_DOUBLE_EQ(model.op_cost(add.view()), m.launch_overhead_ms + a.memory_ms);
}

TEST(AnalyticCost, RooflineRegimesWithDefaults) {
  // Ridge points: 100 / 20 = 5 flops per byte for contractions, 25 / 20 = 1.25 for the rest.
  AnalyticCostModel model;
  // gelu does 24 flops per 8 bytes: compute-bound even though it is element-wise.
  EXPECT_TRUE(model.roofline(Config(OpKind::Gelu, {f32({512, 512})}).view()).compute_bound());
  EXPECT_FALSE(model.roofline(Config(OpKind::Relu, {f32({512, 512})}).view()).compute_bound());
  // A 16x16 matmul (2.7 flops per byte) is memory-bound and costs what an add of the same
  // tensors costs.
  Config small_matmul(OpKind::MatMul, {f32({16, 16}), f32({16, 16})});
  Config small_add(OpKind::EwAdd, {f32({16, 16}), f32({16, 16})});
  EXPECT_FALSE(model.roofline(small_matmul.view()).compute_bound());
  EXPECT_DOUBLE_EQ(model.op_cost(small_matmul.view()), model.op_cost(small_add.view()));
}

TEST(AnalyticCost, CustomMachineParametersFollowTheFormula) {
  MachineParameters m;
  m.peak_gflops = 400;
  m.elementwise_gflops = 1;
  m.memory_gbytes_per_s = 5;
  m.launch_overhead_ms = 0.5;
  AnalyticCostModel model(m);
  AnalyticCostModel baseline;
  Config matmul(OpKind::MatMul, {f32({512, 512}), f32({512, 512})});
  Config add(OpKind::EwAdd, {f32({512, 512}), f32({512, 512})});
  Config gelu(OpKind::Gelu, {f32({512, 512})});
  EXPECT_DOUBLE_EQ(model.op_cost(matmul.view()), roofline_ms(matmul.work(), 400, m));
  EXPECT_DOUBLE_EQ(model.op_cost(add.view()), roofline_ms(add.work(), 1, m));
  EXPECT_DOUBLE_EQ(model.op_cost(gelu.view()), roofline_ms(gelu.work(), 1, m));
  // Four times the contraction throughput makes the compute-bound matmul four times faster.
  double base_compute = baseline.op_cost(matmul.view()) - baseline.machine().launch_overhead_ms;
  double fast_compute = model.roofline(matmul.view()).compute_ms;
  EXPECT_DOUBLE_EQ(fast_compute * 4, base_compute);
  // The slow element-wise unit makes gelu compute-bound here, unlike add.
  EXPECT_TRUE(model.roofline(gelu.view()).compute_bound());
  EXPECT_FALSE(model.roofline(add.view()).compute_bound());
}

TEST(AnalyticCost, RejectsImpossibleMachines) {
  MachineParameters zero_bandwidth;
  zero_bandwidth.memory_gbytes_per_s = 0;
  EXPECT_THROW(AnalyticCostModel{zero_bandwidth}, saturate::Error);
  MachineParameters negative_launch;
  negative_launch.launch_overhead_ms = -1;
  EXPECT_THROW(AnalyticCostModel{negative_launch}, saturate::Error);
}

TEST(AnalyticCost, DescribeIsCanonical) {
  Config conv(OpKind::Conv2d, {f32({1, 3, 8, 8}), f32({4, 3, 3, 3})}, {{"stride_w", int64_t{2}}});
  EXPECT_EQ(
      describe(conv.view()),
      "conv2d(f32[1 3 8 8], f32[4 3 3 3]) activation=none padding=same stride_h=1 stride_w=2");
  Config clip(OpKind::Clip, {f32({2})}, {{"min", 0.0}, {"max", 6.0}});
  EXPECT_EQ(describe(clip.view()), "clip(f32[2]) max=6.0 min=0.0");
}

TEST(GraphCost, WeightOnlySubgraphIsFolded) {
  GraphBuilder b("folded");
  ValueRef x = b.input("x", {8, 32});
  ValueRef joined = b.concat(0, {b.weight({16, 64}), b.weight({16, 64})});
  ValueRef y = b.matmul(x, joined);
  b.output("y", y);
  Graph g = std::move(b).finish();

  std::vector<bool> known = weight_only_nodes(g);
  EXPECT_FALSE(known[x.node]);
  EXPECT_TRUE(known[joined.node]);
  EXPECT_FALSE(known[y.node]);

  AnalyticCostModel model;
  GraphCost cost = graph_cost(g, model);
  EXPECT_EQ(cost.folded_operators, 1);
  EXPECT_EQ(cost.per_node[joined.node], 0);
  Config matmul(OpKind::MatMul, {f32({8, 32}), f32({32, 64})});
  EXPECT_DOUBLE_EQ(cost.per_node[y.node], model.op_cost(matmul.view()));
  EXPECT_DOUBLE_EQ(cost.total, cost.per_node[y.node]);
}

TEST(GraphCost, ConstantsFoldAndInputsDoNot) {
  GraphBuilder b("known");
  ValueRef x = b.input("x", {4});
  ValueRef c = b.constant(2.0, {4});
  ValueRef scaled = b.ewmul(b.sqrt(c), b.weight({4}));  // constant and weight only
  ValueRef y = b.ewadd(x, scaled);
  b.output("y", y);
  Graph g = std::move(b).finish();
  std::vector<bool> known = weight_only_nodes(g);
  EXPECT_TRUE(known[c.node]);
  EXPECT_TRUE(known[scaled.node]);
  EXPECT_FALSE(known[y.node]);
  EXPECT_EQ(graph_cost(g, AnalyticCostModel{}).folded_operators, 2);  // sqrt and ewmul
}

TEST(GraphCost, SharedNodeIsCountedOnce) {
  GraphBuilder b("shared");
  ValueRef x = b.input("x", {64, 64});
  ValueRef r = b.relu(x);
  ValueRef t = b.tanh(r);
  ValueRef s = b.ewadd(r, t);
  ValueRef y = b.ewmul(r, s);  // r has three consumers
  b.output("y", y);
  Graph g = std::move(b).finish();

  AnalyticCostModel model;
  auto one = [&](OpKind op, std::vector<TensorType> in) {
    return model.op_cost(Config(op, in).view());
  };
  TensorType t64 = f32({64, 64});
  double expected = one(OpKind::Relu, {t64}) + one(OpKind::Tanh, {t64}) +
                    one(OpKind::EwAdd, {t64, t64}) + one(OpKind::EwMul, {t64, t64});
  EXPECT_DOUBLE_EQ(graph_cost(g, model).total, expected);
}

TEST(GraphCost, TotalIsSumOfPerNodeCosts) {
  GraphBuilder b("net");
  ValueRef x = b.input("x", {1, 3, 32, 32});
  ValueRef h = b.conv(x, 16, 3, 3, 1, Padding::Same, Activation::Relu);
  h = b.batchnorm(h);
  h = b.poolmax(h, 2, 2, 2, 2, Padding::Valid);
  h = b.reshape(h, {1, 16 * 16 * 16});
  h = b.matmul(h, b.weight({16 * 16 * 16, 10}));
  ValueRef y = b.softmax(h);
  b.output("y", y);
  Graph g = std::move(b).finish();

  AnalyticCostModel model;
  GraphCost cost = graph_cost(g, model);
  ASSERT_EQ(cost.per_node.size(), g.num_nodes());
  EXPECT_DOUBLE_EQ(cost.total, std::accumulate(cost.per_node.begin(), cost.per_node.end(), 0.0));
  EXPECT_EQ(cost.folded_operators, 0);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& node = g.node(id);
    if (op_info(node.op).is_leaf()) {
      EXPECT_EQ(cost.per_node[id], 0) << node.name();
    } else {
      std::vector<TensorType> in = input_types(g, id);
      EXPECT_DOUBLE_EQ(cost.per_node[id], model.op_cost({node.op, node.attrs, in, node.outputs}))
          << node.name();
      EXPECT_GE(cost.per_node[id], model.machine().launch_overhead_ms) << node.name();
    }
  }
}

// Every operator kind is priced, finitely, by the analytic model (a new OpKind without a rule
// fails to compile through -Wswitch; this checks the rules do not throw).
TEST(GraphCost, EveryOperatorIsPriced) {
  GraphBuilder b("all");
  ValueRef x = b.input("x", {1, 4, 8, 8});
  ValueRef v = b.input("v", {8, 8});
  ValueRef h = b.input("h", {2, 4, 8});
  std::vector<ValueRef> values = {
      b.ewadd(v, v),
      b.ewmul(v, v),
      b.add(v, b.input("bias", {8})),
      b.mul(v, b.constant(2.0)),
      b.sub(v, v),
      b.div(v, v),
      b.pow(v, v),
      b.matmul(v, v, Activation::Tanh),
      b.conv(x, 4, 3, 3, 1, Padding::Same, Activation::Sigmoid, 2),
      b.relu(v),
      b.tanh(v),
      b.sigmoid(v),
      b.sqrt(v),
      b.erf(v),
      b.exp(v),
      b.gelu(v),
      b.clip(v, 0, 6),
      b.apply(OpKind::LeakyRelu, {v}, {{"alpha", 0.1}}),
      b.apply(OpKind::HardSigmoid, {v}, {}),
      b.poolmax(x, 2, 2, 2, 2),
      b.poolavg(x, 3, 3, 1, 1),
      b.transpose(v, {1, 0}),
      b.reshape(v, {64}),
      b.concat(0, {v, v}),
      b.split(v, 1, {3, 5})[1],
      b.batchnorm(x),
      b.softmax(v),
      b.layernorm(v),
      b.apply(OpKind::RMSNorm, {v, b.weight({8})}),
      b.apply(OpKind::BiasGelu, {v, b.weight({8})}),
      b.apply(OpKind::FastGelu, {v}),
      b.apply(OpKind::QuickGelu, {v}, {{"alpha", 1.702}}),
      b.apply_outputs(OpKind::SkipLayerNorm, {v, v, b.weight({8}), b.weight({8})})[1],
      b.apply_outputs(OpKind::SkipRMSNorm, {h, h, b.weight({8})})[0],
      b.reduce_mean(x, {2, 3}, false),
      b.attention(v, v, v, 2.0),
      b.apply(OpKind::MultiHeadAttention, {h, h, h}, {{"num_heads", int64_t{2}}, {"scale", 0.5}}),
      b.apply(OpKind::QkvAttention, {h, b.weight({8, 24}), b.weight({24})},
              {{"num_heads", int64_t{2}}, {"scale", 0.5}}),
      b.noop(v, v),
      b.apply(OpKind::Pad, {v}, {{"pads", Dims{1, 0, 0, 1}}}),
      b.apply(OpKind::Slice, {v},
              {{"axis", int64_t{1}}, {"start", int64_t{2}}, {"end", int64_t{6}}}),
      b.apply(OpKind::RotaryEmbedding, {x, b.weight({8, 8}), b.weight({1, 8, 8})}),
      b.apply(OpKind::FusedMatMul, {h, v}, {{"alpha", 0.5}, {"trans_b", int64_t{1}}}),
      b.apply(OpKind::FusedConv, {x, b.weight({4, 4, 3, 3}), b.weight({4}), x},
              {{"activation", static_cast<int64_t>(Activation::Relu)}}),
      b.apply(OpKind::Opaque, {v},
              {{"op_type", std::string("Hardmax")}, {"output_types", std::string("f32[8 8]")}})};
  // Weight-transform operators, fed by an input so that they are not folded.
  ValueRef kernel = b.input("k", {4, 2, 1, 1});
  values.push_back(b.enlarge(kernel, b.weight({4, 2, 3, 3})));
  values.push_back(b.merge(kernel, 2));
  for (size_t i = 0; i < values.size(); ++i) b.output("o" + std::to_string(i), values[i]);
  Graph g = std::move(b).finish();

  std::vector<bool> seen(kNumOpKinds, false);
  for (const Node& node : g.nodes()) seen[static_cast<size_t>(node.op)] = true;
  for (int k = 0; k < kNumOpKinds; ++k) {
    if (!op_info(static_cast<OpKind>(k)).is_leaf() || static_cast<OpKind>(k) == OpKind::Input) {
      EXPECT_TRUE(seen[k]) << "no " << to_string(static_cast<OpKind>(k)) << " in the graph";
    }
  }
  AnalyticCostModel model;
  GraphCost cost = graph_cost(g, model);
  EXPECT_EQ(cost.folded_operators, 0);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& node = g.node(id);
    bool is_free =
        op_info(node.op).is_leaf() || node.op == OpKind::Noop || node.op == OpKind::Split;
    if (is_free) {
      EXPECT_EQ(cost.per_node[id], 0) << node.name();
    } else {
      EXPECT_GE(cost.per_node[id], model.machine().launch_overhead_ms) << node.name();
      EXPECT_LT(cost.per_node[id], 1.0) << node.name();  // small tensors: well under 1 ms
    }
  }
}
