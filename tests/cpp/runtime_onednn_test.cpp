// The oneDNN executor against the reference interpreter: every bundled model, and each
// primitive on its own with the padding, stride, group and broadcast cases that differ between
// the IR's semantics and oneDNN's defaults.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ir/text_format.h"
#include "models/model_registry.h"
#include "runtime/interpreter.h"
#include "runtime/onednn_executor.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::runtime;

namespace {

// Runs `graph` on the same random feeds in the reference interpreter (float32 rounding) and the
// executor and expects every output within `tolerance` (|a - b| / (1 + |b|)).
OnednnPlanStats expect_matches_reference(const ir::Graph& graph, double tolerance = 1e-4,
                                         uint64_t seed = 7) {
  const TensorMap feeds = random_feeds(graph, seed);
  const TensorMap expected = Interpreter(Precision::F32).run(graph, feeds);
  OnednnExecutor executor(graph, feeds, {.threads = 2});
  // Twice: the plan's buffers and primitives are reused, so a second run must agree too.
  for (int run = 0; run < 2; ++run) {
    const TensorMap actual = executor.run(feeds);
    EXPECT_EQ(actual.size(), expected.size());
    for (const auto& [name, want] : expected) {
      EXPECT_TRUE(actual.contains(name)) << name;
      if (!actual.contains(name)) continue;
      const Tensor& got = actual.at(name);
      EXPECT_EQ(got.dims, want.dims) << name;
      if (got.dims != want.dims) continue;
      EXPECT_LE(max_relative_difference(got, want), tolerance) << graph.name() << " " << name;
    }
  }
  return executor.stats();
}

OnednnPlanStats expect_text_matches(const std::string& text, double tolerance = 1e-4) {
  return expect_matches_reference(ir::parse_text(text), tolerance);
}

// A one-operator graph `y = (OP x...)` over the given leaves.
std::string graph_text(const std::string& leaves, const std::string& op) {
  return "(graph t " + leaves + " (node y " + op + ") (output y y))";
}

}  // namespace

// --- Whole models --------------------------------------------------------------------------

class OnednnModelTest : public ::testing::TestWithParam<models::ModelInfo> {};

TEST_P(OnednnModelTest, MatchesReferenceInterpreter) {
  const models::ModelInfo& model = GetParam();
  const ir::Graph graph = model.build({.reduced = true, .layers = 0});
  if (!model.finite_on_random_inputs) {
    // Values overflow on random inputs (see ModelInfo): only check that the plan runs.
    const TensorMap feeds = random_feeds(graph, 7);
    OnednnExecutor executor(graph, feeds, {.threads = 2});
    EXPECT_EQ(executor.run(feeds).size(), graph.outputs().size());
    return;
  }
  const OnednnPlanStats stats = expect_matches_reference(graph, 1e-3);
  EXPECT_GT(stats.primitives, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllModels, OnednnModelTest, ::testing::ValuesIn(models::all_models()),
                         [](const auto& param_info) { return param_info.param.name; });

// --- Convolution ---------------------------------------------------------------------------

struct ConvCase {
  std::string name;
  std::string input;   // shape
  std::string weight;  // shape
  std::string attrs;
};

class OnednnConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(OnednnConvTest, MatchesReference) {
  const ConvCase& c = GetParam();
  for (const char* weight_kind : {"weight", "input"}) {
    SCOPED_TRACE(weight_kind);
    const OnednnPlanStats stats =
        expect_text_matches(graph_text("(node x (input :shape " + c.input + ")) (node w (" +
                                           weight_kind + " :shape " + c.weight + "))",
                                       "(conv2d x w " + c.attrs + ")"));
    EXPECT_EQ(stats.fallbacks, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnednnConvTest,
    ::testing::Values(
        ConvCase{"Same3x3", "[1 4 7 7]", "[8 4 3 3]", ""},
        ConvCase{"Valid3x3", "[2 3 9 8]", "[5 3 3 3]", ":padding valid"},
        // SAME with an even kernel and stride 2: the odd extra padding goes at the end.
        ConvCase{"SameEvenKernelStride2", "[1 3 8 7]", "[4 3 2 2]", ":stride_h 2 :stride_w 2"},
        ConvCase{"SameStride2Odd", "[1 3 9 9]", "[4 3 3 3]", ":stride_h 2 :stride_w 2"},
        ConvCase{"SameAsymmetricStride", "[1 2 10 7]", "[3 2 5 3]", ":stride_h 3 :stride_w 1"},
        ConvCase{"ValidStride2", "[1 4 11 11]", "[6 4 3 3]",
                 ":padding valid :stride_h 2 "
                 ":stride_w 2"},
        ConvCase{"KernelLargerThanInputSame", "[1 2 3 3]", "[2 2 5 5]", ""},
        ConvCase{"Grouped", "[1 8 6 6]", "[12 2 3 3]", ""},
        ConvCase{"Depthwise", "[2 6 7 7]", "[6 1 3 3]", ":stride_h 2 :stride_w 2"},
        ConvCase{"PointwiseRelu", "[1 16 5 5]", "[8 16 1 1]", ":activation relu"},
        ConvCase{"Sigmoid", "[1 3 6 6]", "[4 3 3 3]", ":activation sigmoid"},
        ConvCase{"GroupedTanhValid", "[1 4 6 6]", "[4 2 3 3]", ":activation tanh :padding valid"}),
    [](const auto& param_info) { return param_info.param.name; });

// --- Matmul --------------------------------------------------------------------------------

struct BinaryShapes {
  std::string name;
  std::string a;
  std::string b;
  std::string extra;
};

class OnednnMatmulTest : public ::testing::TestWithParam<BinaryShapes> {};

TEST_P(OnednnMatmulTest, MatchesReference) {
  const BinaryShapes& c = GetParam();
  const OnednnPlanStats stats = expect_text_matches(
      graph_text("(node a (input :shape " + c.a + ")) (node b (input :shape " + c.b + "))",
                 "(matmul a b " + c.extra + ")"));
  EXPECT_EQ(stats.fallbacks, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnednnMatmulTest,
    ::testing::Values(BinaryShapes{"Plain", "[8 16]", "[16 4]", ""},
                      BinaryShapes{"Relu", "[3 5]", "[5 7]", ":activation relu"},
                      BinaryShapes{"Tanh", "[3 5]", "[5 7]", ":activation tanh"},
                      BinaryShapes{"Batched", "[4 3 5]", "[4 5 2]", ""},
                      BinaryShapes{"BroadcastWeights", "[4 3 5]", "[5 2]", ":activation sigmoid"},
                      BinaryShapes{"BroadcastBatchDims", "[2 1 3 5]", "[1 4 5 6]", ""},
                      BinaryShapes{"BroadcastFirst", "[3 5]", "[6 5 2]", ""}),
    [](const auto& param_info) { return param_info.param.name; });

// --- Element-wise binary with broadcasting --------------------------------------------------

class OnednnBinaryTest : public ::testing::TestWithParam<BinaryShapes> {};

TEST_P(OnednnBinaryTest, MatchesReference) {
  const BinaryShapes& c = GetParam();
  for (const char* op : {"add", "mul", "sub", "div"}) {
    SCOPED_TRACE(op);
    // Divisors away from zero: b is offset by a constant 3 first.
    expect_text_matches(graph_text("(node a (input :shape " + c.a + ")) (node b0 (input :shape " +
                                       c.b + ")) (node three (constant :shape " + c.b +
                                       " :value 3)) (node b (add b0 three))",
                                   std::string("(") + op + " a b)"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnednnBinaryTest,
    ::testing::Values(BinaryShapes{"Same", "[4 5]", "[4 5]", ""},
                      BinaryShapes{"BiasRow", "[4 5]", "[5]", ""},
                      BinaryShapes{"PerChannel", "[2 3 4 4]", "[3 1 1]", ""},
                      BinaryShapes{"Scalar", "[2 3]", "[1]", ""},
                      // The first operand broadcasts: swapped for add/mul, reference for sub/div.
                      BinaryShapes{"FirstBroadcasts", "[5]", "[4 5]", ""},
                      BinaryShapes{"BothBroadcast", "[4 1]", "[1 5]", ""}),
    [](const auto& param_info) { return param_info.param.name; });

TEST(OnednnBinary, TensatElementwiseOpsRunNatively) {
  for (const char* op : {"ewadd", "ewmul"}) {
    const OnednnPlanStats stats = expect_text_matches(
        graph_text("(node a (input :shape [3 4 5])) (node b (input :shape [3 4 5]))",
                   std::string("(") + op + " a b)"));
    EXPECT_EQ(stats.fallbacks, 0u);
  }
}

// --- Pooling -------------------------------------------------------------------------------

struct PoolCase {
  std::string name;
  std::string input;
  std::string attrs;
};

class OnednnPoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(OnednnPoolTest, MatchesReference) {
  const PoolCase& c = GetParam();
  for (const char* op : {"poolmax", "poolavg"}) {
    SCOPED_TRACE(op);
    const OnednnPlanStats stats = expect_text_matches(graph_text(
        "(node x (input :shape " + c.input + "))", std::string("(") + op + " x " + c.attrs + ")"));
    EXPECT_EQ(stats.fallbacks, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OnednnPoolTest,
    ::testing::Values(
        PoolCase{"Same3x3Stride1", "[1 3 6 6]", ":kernel_h 3 :kernel_w 3"},
        PoolCase{"Same3x3Stride2", "[2 2 7 8]", ":kernel_h 3 :kernel_w 3 :stride_h 2 :stride_w 2"},
        PoolCase{"SameEven", "[1 2 5 5]", ":kernel_h 2 :kernel_w 2 :stride_h 2 :stride_w 2"},
        PoolCase{"Valid2x2", "[1 4 8 8]",
                 ":kernel_h 2 :kernel_w 2 :stride_h 2 :stride_w 2 :padding valid"},
        PoolCase{"ValidRectangular", "[1 1 9 7]",
                 ":kernel_h 3 :kernel_w 2 :stride_h 2 :stride_w 1 :padding valid"},
        PoolCase{"SameRelu", "[1 2 6 6]", ":kernel_h 3 :kernel_w 3 :activation relu"},
        PoolCase{"ValidTanh", "[1 2 6 6]",
                 ":kernel_h 3 :kernel_w 3 :activation tanh :padding "
                 "valid"}),
    [](const auto& param_info) { return param_info.param.name; });

// --- Element-wise unary --------------------------------------------------------------------

TEST(OnednnUnary, EachFunctionMatchesReference) {
  for (const char* op : {"(relu x)", "(tanh x)", "(sigmoid x)", "(exp x)", "(gelu x)",
                         "(clip x :min -0.25 :max 0.5)", "(erf x)"}) {
    SCOPED_TRACE(op);
    expect_text_matches(graph_text("(node x (input :shape [3 4 5]))", op));
  }
  // sqrt of a positive value.
  expect_text_matches(
      "(graph t (node x (input :shape [3 4])) (node one (constant :shape [3 4] :value 1.5)) "
      "(node p (add x one)) (node y (sqrt p)) (output y y))");
}

TEST(OnednnUnary, PowAndErfFallBackToReferenceKernels) {
  const OnednnPlanStats stats = expect_text_matches(
      "(graph t (node x (input :shape [3 4])) (node two (constant :shape [3 4] :value 2)) "
      "(node one (constant :shape [3 4] :value 1.5)) (node p (add x one)) "
      "(node q (pow p two)) (node y (erf q)) (output y y))");
  EXPECT_EQ(stats.fallbacks, 2u);
}

// --- Layout --------------------------------------------------------------------------------

TEST(OnednnLayout, TransposeAnyPermutation) {
  for (const char* perm : {"[1 0]", "[0 2 1]", "[2 0 1]", "[3 1 0 2]"}) {
    SCOPED_TRACE(perm);
    const std::string shape = std::string(perm).size() == 5   ? "[3 4]"
                              : std::string(perm).size() == 7 ? "[2 3 4]"
                                                              : "[2 3 4 5]";
    const OnednnPlanStats stats = expect_text_matches(graph_text(
        "(node x (input :shape " + shape + "))", std::string("(transpose x :perm ") + perm + ")"));
    EXPECT_EQ(stats.fallbacks, 0u);
    EXPECT_EQ(stats.reorders, 1u);
  }
}

TEST(OnednnLayout, ConcatAlongEachAxis) {
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    ir::Dims a{2, 3, 4};
    ir::Dims b{2, 3, 4};
    b[static_cast<size_t>(axis)] = 5;
    const OnednnPlanStats stats = expect_text_matches(
        graph_text("(node a (input :shape " + ir::to_string(a) + ")) (node b (input :shape " +
                       ir::to_string(b) + ")) (node c (input :shape " + ir::to_string(a) + "))",
                   "(concat a b c :axis " + std::to_string(axis) + ")"));
    EXPECT_EQ(stats.fallbacks, 0u);
  }
  expect_text_matches(graph_text("(node a (input :shape [2 3])) (node b (input :shape [2 2]))",
                                 "(concat a b :axis -1)"));
}

TEST(OnednnLayout, SplitReshapeAndNoopNeedNoKernel) {
  const OnednnPlanStats stats = expect_text_matches(
      "(graph t (node x (input :shape [2 6 3])) (node (a b c) (split x :axis 1 :sizes [1 2 3])) "
      "(node r (reshape c :shape [-1 3])) (node s (relu a)) (node n (noop s b)) "
      "(output r r) (output n n) (output b b))");
  EXPECT_EQ(stats.fallbacks, 0u);
  EXPECT_EQ(stats.native_copies, 5u);  // three split parts, one reshape, one noop
}

// --- Normalization and reductions ----------------------------------------------------------

TEST(OnednnNormalization, SoftmaxOnEachAxis) {
  for (const char* axis : {"0", "1", "-1"}) {
    SCOPED_TRACE(axis);
    expect_text_matches(graph_text("(node x (input :shape [3 4 5]))",
                                   std::string("(softmax x :axis ") + axis + ")"));
  }
}

TEST(OnednnNormalization, LayerNormOverTrailingAxes) {
  expect_text_matches(
      "(graph t (node x (input :shape [2 3 8])) (node g (weight :shape [8])) "
      "(node b (weight :shape [8])) (node y (layernorm x g b)) (output y y))");
  // Normalizing over the last two axes.
  const OnednnPlanStats stats = expect_text_matches(
      "(graph t (node x (input :shape [2 3 4])) (node g (weight :shape [3 4])) "
      "(node b (weight :shape [3 4])) (node y (layernorm x g b :axis 1 :epsilon 0.001)) "
      "(output y y))");
  EXPECT_EQ(stats.fallbacks, 0u);
}

TEST(OnednnNormalization, BatchNormOfEachRank) {
  for (const char* shape : {"[4 3]", "[2 3 5]", "[2 3 4 4]", "[1 3 2 2 2 2]"}) {
    SCOPED_TRACE(shape);
    const OnednnPlanStats stats =
        expect_text_matches(std::string("(graph t (node x (input :shape ") + shape +
                            ")) (node s (weight :shape [3])) (node b (weight :shape [3])) "
                            "(node m (weight :shape [3])) (node v (weight :shape [3])) "
                            "(node y (batchnorm x s b m v)) (output y y))");
    EXPECT_EQ(stats.fallbacks, 0u);
  }
}

TEST(OnednnNormalization, ReduceMeanKeepingOrDroppingAxes) {
  for (const char* attrs :
       {":axes [1]", ":axes [2 3] :keepdims 0", ":axes [-1] :keepdims 1", ":axes [0 2]"}) {
    SCOPED_TRACE(attrs);
    const OnednnPlanStats stats = expect_text_matches(graph_text(
        "(node x (input :shape [2 3 4 5]))", std::string("(reduce_mean x ") + attrs + ")"));
    EXPECT_EQ(stats.fallbacks, 0u);
  }
}

TEST(OnednnFallback, AttentionRunsOnReferenceKernels) {
  const OnednnPlanStats stats = expect_text_matches(
      "(graph t (node q (input :shape [2 4 8])) (node k (input :shape [2 8 4])) "
      "(node v (input :shape [2 4 8])) (node y (attention q k v :scale 2.8)) (output y y))");
  EXPECT_EQ(stats.fallbacks, 1u);
}

// --- Weight preprocessing, feeds, refusals -------------------------------------------------

TEST(OnednnFolding, WeightOnlyOperatorsAreComputedOnceAtCompileTime) {
  // Two weights concatenated, then enlarged, feed a convolution: the concat and the enlarge are
  // folded; only the convolution runs.
  const OnednnPlanStats stats = expect_text_matches(
      "(graph t (node x (input :shape [1 4 6 6])) (node w1 (weight :shape [2 4 1 1])) "
      "(node w2 (weight :shape [3 4 1 1])) (node ref (weight :shape [5 4 3 3])) "
      "(node w (concat w1 w2 :axis 0)) (node big (enlarge w ref)) "
      "(node y (conv2d x big)) (output y y))");
  EXPECT_EQ(stats.folded, 2u);
  EXPECT_EQ(stats.fallbacks, 0u);
}

TEST(OnednnFeeds, MissingWeightAndMisshapedInputAreNamed) {
  const ir::Graph graph = ir::parse_text(
      graph_text("(node x (input :shape [2 3])) (node w (weight :shape [3 4]))", "(matmul x w)"));
  try {
    OnednnExecutor executor(graph, {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'w'"), std::string::npos) << error.what();
  }
  TensorMap feeds = random_feeds(graph, 1);
  OnednnExecutor executor(graph, feeds);
  feeds["x"] = Tensor({3, 2}, 0.0);
  try {
    executor.run(feeds);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'x'"), std::string::npos) << error.what();
  }
}

TEST(OnednnRefusal, OpaqueOperatorIsRefusedByName) {
  const ir::Graph graph =
      ir::parse_text(graph_text("(node x (input :shape [2 3]))",
                                "(opaque x :op_type \"Frobnicate\" :output_types "
                                "\"f32[2 3]\")"));
  try {
    OnednnExecutor executor(graph, random_feeds(graph, 1));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'y'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("opaque"), std::string::npos) << error.what();
  }
}

TEST(OnednnTiming, TimeRunsReturnsOneSamplePerRun) {
  const ir::Graph graph = ir::parse_text(
      graph_text("(node x (input :shape [4 8])) (node w (weight :shape [8 8]))", "(matmul x w)"));
  const TensorMap feeds = random_feeds(graph, 1);
  OnednnExecutor executor(graph, feeds);
  executor.set_inputs(feeds);
  const std::vector<double> samples = executor.time_runs(1, 3);
  ASSERT_EQ(samples.size(), 3u);
  for (double ms : samples) EXPECT_TRUE(std::isfinite(ms) && ms >= 0);
}

TEST(OnednnSupport, RunsNativelyMatchesThePlan) {
  const std::vector<ir::TensorType> matrix{{ir::DType::F32, {4, 5}}, {ir::DType::F32, {5}}};
  const std::vector<ir::TensorType> out{{ir::DType::F32, {4, 5}}};
  EXPECT_TRUE(OnednnExecutor::runs_natively(ir::OpKind::Add, {}, matrix, out));
  EXPECT_TRUE(OnednnExecutor::runs_natively(ir::OpKind::Sub, {}, matrix, out));
  const std::vector<ir::TensorType> swapped{matrix[1], matrix[0]};
  EXPECT_TRUE(OnednnExecutor::runs_natively(ir::OpKind::Add, {}, swapped, out));
  EXPECT_FALSE(OnednnExecutor::runs_natively(ir::OpKind::Sub, {}, swapped, out));
  EXPECT_FALSE(OnednnExecutor::runs_natively(ir::OpKind::Pow, {}, matrix, out));
  EXPECT_FALSE(OnednnExecutor::runs_natively(ir::OpKind::Input, {}, {}, out));
}
