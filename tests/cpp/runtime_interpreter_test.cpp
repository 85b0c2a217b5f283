// The interpreter as a whole: feeds and their errors, random_feeds, precision modes, run versus
// run_all versus evaluate, leaves and noop.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "ir/graph_builder.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "runtime/interpreter.h"
#include "support/error.h"

using namespace saturate::ir;
using namespace saturate::runtime;
using saturate::Error;

namespace {

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a saturate::Error";
  return "";
}

// A small model touching most operator families, with weights of every random_feeds class.
Graph small_model() {
  GraphBuilder b("small");
  ValueRef x = b.input("x", {2, 3, 6, 6});
  ValueRef h = b.conv(x, 4, 3, 3, 1, Padding::Same, Activation::Relu);
  h = b.batchnorm(h);
  h = b.poolavg(h, 2, 2, 2, 2);
  ValueRef flat = b.reshape(h, {2, -1});
  ValueRef logits = b.matmul(flat, b.weight({36, 5}, "fc"));
  ValueRef norm = b.layernorm(b.gelu(logits));
  b.output("probs", b.softmax(norm));
  b.output("mean", b.reduce_mean(logits, {1}, false));
  return std::move(b).finish();
}

}  // namespace

TEST(Interpreter, MissingFeedNamesTheValue) {
  GraphBuilder b("g");
  b.output("y", b.relu(b.input("tokens", {2, 3})));
  std::string message = error_of([&] { Interpreter().run(b.graph(), {}); });
  EXPECT_NE(message.find("'tokens'"), std::string::npos) << message;
  EXPECT_NE(message.find("[2 3]"), std::string::npos) << message;
}

TEST(Interpreter, WrongFeedShapeNamesBothShapes) {
  GraphBuilder b("g");
  b.output("y", b.matmul(b.input("x", {2, 3}), b.weight({3, 4}, "proj")));
  TensorMap feeds = {{"x", Tensor({2, 3})}, {"proj", Tensor({4, 3})}};
  std::string message = error_of([&] { Interpreter().run(b.graph(), feeds); });
  EXPECT_NE(message.find("'proj'"), std::string::npos) << message;
  EXPECT_NE(message.find("[4 3]"), std::string::npos) << message;
  EXPECT_NE(message.find("[3 4]"), std::string::npos) << message;
}

TEST(Interpreter, FeedWithInconsistentDataIsRejected) {
  GraphBuilder b("g");
  b.output("y", b.relu(b.input("x", {2, 3})));
  Tensor broken;
  broken.dims = {2, 3};
  broken.data = {1, 2};
  EXPECT_THROW(Interpreter().run(b.graph(), {{"x", broken}}), Error);
}

TEST(Interpreter, ConstantAndNoop) {
  GraphBuilder b("g");
  ValueRef c = b.constant(2.5, {2, 2});
  ValueRef x = b.input("x", {2, 2});
  b.output("y", b.noop(c, x));
  Tensor y = Interpreter().run(b.graph(), {{"x", Tensor({2, 2}, -1.0)}}).at("y");
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_THAT(y.data, ::testing::Each(2.5));
}

TEST(Interpreter, RunAllGivesEveryValueAndAgreesWithRun) {
  Graph g = small_model();
  TensorMap feeds = random_feeds(g, 1);
  Interpreter interpreter;
  auto all = interpreter.run_all(g, feeds);
  ASSERT_EQ(all.size(), g.num_nodes());
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    ASSERT_EQ(all[id].size(), g.node(id).outputs.size());
    for (size_t k = 0; k < all[id].size(); ++k) {
      EXPECT_EQ(all[id][k].dims, g.node(id).outputs[k].dims) << g.node(id).name();
    }
  }
  TensorMap outputs = interpreter.run(g, feeds);
  ASSERT_EQ(outputs.size(), 2u);
  for (const GraphOutput& output : g.outputs()) {
    EXPECT_EQ(outputs.at(output.name).data, all[output.value.node][output.value.output].data);
  }
  // Softmax rows of a real model still sum to one.
  const Tensor& probs = outputs.at("probs");
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int k = 0; k < 5; ++k) sum += probs.data[static_cast<size_t>(row * 5 + k)];
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(Interpreter, RunKeepsValuesUsedTwiceAndOutputsUsedLater) {
  // y1 is an output and also feeds y2; x feeds three nodes.
  GraphBuilder b("reuse");
  ValueRef x = b.input("x", {3});
  ValueRef y1 = b.ewadd(x, x);
  ValueRef y2 = b.ewmul(y1, x);
  b.output("y1", y1);
  b.output("y2", b.sub(y2, x));
  TensorMap out = Interpreter().run(b.graph(), {{"x", Tensor({3}, std::vector<double>{1, 2, 3})}});
  EXPECT_EQ(out.at("y1").data, (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(out.at("y2").data, (std::vector<double>{1, 6, 15}));
}

TEST(Interpreter, SplitOutputsByName) {
  Graph g = parse_text(R"((graph s
    (node x (input :shape [2 4]))
    (node (a b) (split x :axis 1 :sizes [1 3]))
    (output first a)
    (output second b)))");
  Tensor x({2, 4}, std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  TensorMap out = Interpreter().run(g, {{"x", x}});
  EXPECT_EQ(out.at("first").data, (std::vector<double>{1, 5}));
  EXPECT_EQ(out.at("second").data, (std::vector<double>{2, 3, 4, 6, 7, 8}));
}

TEST(Interpreter, EvaluateOneNode) {
  GraphBuilder b("g");
  ValueRef sum = b.add(b.input("a", {2}), b.input("b", {1}));
  const Node& node = b.graph().node(sum.node);
  Tensor a({2}, std::vector<double>{1, 2});
  Tensor c({1}, std::vector<double>{10});
  auto out = Interpreter().evaluate(node, {&a, &c});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, (std::vector<double>{11, 12}));
}

TEST(Interpreter, EvaluateRejectsInputsOfTheWrongShape) {
  GraphBuilder b("g");
  ValueRef product = b.matmul(b.input("a", {2, 3}), b.input("b", {3, 4}));
  const Node& node = b.graph().node(product.node);
  Tensor a({2, 3});
  Tensor wrong({3, 5});
  std::string message = error_of([&] { Interpreter().evaluate(node, {&a, &wrong}); });
  EXPECT_NE(message.find("[3 5]"), std::string::npos) << message;
  Tensor mismatch({4, 4});
  EXPECT_THROW(Interpreter().evaluate(node, {&a, &mismatch}), Error);
  EXPECT_THROW(Interpreter().evaluate(node, {&a}), Error);
}

TEST(Interpreter, EvaluateOfAnInputNeedsAFeed) {
  GraphBuilder b("g");
  ValueRef x = b.input("x", {2});
  EXPECT_THROW(Interpreter().evaluate(b.graph().node(x.node), {}), Error);
}

TEST(RandomFeeds, DeterministicPerSeed) {
  Graph g = small_model();
  TensorMap first = random_feeds(g, 42);
  TensorMap again = random_feeds(g, 42);
  TensorMap other = random_feeds(g, 43);
  ASSERT_EQ(first.size(), again.size());
  for (const auto& [name, tensor] : first) {
    EXPECT_EQ(tensor.data, again.at(name).data) << name;
    EXPECT_NE(tensor.data, other.at(name).data) << name;
  }
}

TEST(RandomFeeds, CoversEveryLeafWithItsShape) {
  Graph g = small_model();
  TensorMap feeds = random_feeds(g, 5);
  for (const Node& node : g.nodes()) {
    if (!op_info(node.op).is_leaf()) continue;
    ASSERT_TRUE(feeds.contains(node.name())) << node.name();
    EXPECT_EQ(feeds.at(node.name()).dims, node.outputs[0].dims) << node.name();
  }
}

TEST(RandomFeeds, Ranges) {
  GraphBuilder b("ranges");
  ValueRef x = b.input("x", {4, 8, 5, 5});
  ValueRef conv = b.conv2d(x, b.weight({16, 8, 3, 3}, "kernel"));
  ValueRef bn = b.apply(OpKind::BatchNorm, {conv, b.weight({16}, "scale"), b.weight({16}, "shift"),
                                            b.weight({16}, "mean"), b.weight({16}, "var")});
  ValueRef flat = b.reshape(bn, {4, -1});
  ValueRef fc = b.matmul(flat, b.weight({400, 10}, "fc"));
  ValueRef ln = b.apply(OpKind::LayerNorm, {fc, b.weight({10}, "gamma"), b.weight({10}, "beta")});
  b.output("y", b.add(ln, b.constant(0.25, {10})));
  TensorMap feeds = random_feeds(b.graph(), 9);

  auto expect_within = [&](const std::string& name, double low, double high) {
    const Tensor& t = feeds.at(name);
    double lowest = *std::min_element(t.data.begin(), t.data.end());
    double highest = *std::max_element(t.data.begin(), t.data.end());
    EXPECT_GE(lowest, low) << name;
    EXPECT_LE(highest, high) << name;
    // Spread over most of the range, not a constant.
    EXPECT_LT(lowest, low + (high - low) * 0.25) << name;
    EXPECT_GT(highest, high - (high - low) * 0.25) << name;
  };
  expect_within("x", -1, 1);
  const double conv_bound = std::sqrt(3.0 / (8 * 3 * 3));
  expect_within("kernel", -conv_bound, conv_bound);
  const double fc_bound = std::sqrt(3.0 / 400);
  expect_within("fc", -fc_bound, fc_bound);
  expect_within("scale", 0.5, 1.5);
  expect_within("var", 0.5, 1.5);
  expect_within("gamma", 0.5, 1.5);
  // Rank 1: fan-in 1, so sqrt(3).
  expect_within("shift", -std::sqrt(3.0), std::sqrt(3.0));
  expect_within("mean", -std::sqrt(3.0), std::sqrt(3.0));
  NodeId constant = b.graph().nodes_of(OpKind::Constant).at(0);
  EXPECT_THAT(feeds.at(b.graph().node(constant).name()).data, ::testing::Each(0.25));
}

TEST(RandomFeeds, KeepsGivenValues) {
  Graph g = small_model();
  Tensor mine({2, 3, 6, 6}, 0.5);
  TensorMap feeds = random_feeds(g, 42, {{"x", mine}});
  EXPECT_EQ(feeds.at("x").data, mine.data);
  EXPECT_EQ(feeds.at("fc").dims, (Dims{36, 5}));
}

TEST(RandomFeeds, Float32LeavesHoldFloat32Values) {
  TensorMap feeds = random_feeds(small_model(), 11);
  for (const auto& [name, tensor] : feeds) {
    for (double v : tensor.data) ASSERT_EQ(static_cast<double>(static_cast<float>(v)), v) << name;
  }
}

TEST(Precision, F32RoundsEveryResult) {
  Graph g = small_model();
  TensorMap feeds = random_feeds(g, 3);
  auto values = Interpreter({Precision::F32}).run_all(g, feeds);
  for (const auto& node_values : values) {
    for (const Tensor& t : node_values) {
      for (double v : t.data) ASSERT_EQ(static_cast<double>(static_cast<float>(v)), v);
    }
  }
}

TEST(Precision, F32AndF64DifferOnlyByRounding) {
  Graph g = small_model();
  TensorMap feeds = random_feeds(g, 3);
  TensorMap single = Interpreter({Precision::F32}).run(g, feeds);
  TensorMap exact = Interpreter({Precision::F64}).run(g, feeds);
  for (const auto& [name, tensor] : exact) {
    double difference = max_relative_difference(single.at(name), tensor);
    EXPECT_LT(difference, 1e-5) << name;
    EXPECT_GT(difference, 0.0) << name;  // the modes really differ
  }
}

TEST(Precision, F32RoundsFeeds) {
  GraphBuilder b("g");
  b.output("y", b.reshape(b.input("x", {1}), {1, 1}));
  TensorMap feeds = {{"x", Tensor({1}, 0.1)}};
  EXPECT_EQ(Interpreter({Precision::F32}).run(b.graph(), feeds).at("y").data[0],
            static_cast<double>(0.1f));
  EXPECT_EQ(Interpreter({Precision::F64}).run(b.graph(), feeds).at("y").data[0], 0.1);
}

// A float16 or bfloat16 value holds what its type holds: feeds and every result are rounded to
// the 16-bit type (computed wider and rounded once, as CPU runtimes compute 16-bit operators).
TEST(Precision, F32RoundsSixteenBitValuesToTheirType) {
  for (DType dtype : {DType::F16, DType::BF16}) {
    Graph g("g");
    ValueRef x = g.add_input("x", {1}, dtype);
    ValueRef y = g.add_input("y", {1}, dtype);
    g.add_output("sum", {g.add_node(OpKind::Add, {x, y}, {}, {"sum"}), 0});
    // 1 + 2^-12 needs 13 significant bits: float16 keeps 11, bfloat16 8; both round to 1.
    TensorMap feeds = {{"x", Tensor({1}, 1.0)}, {"y", Tensor({1}, std::ldexp(1.0, -12))}};
    const double rounded = Interpreter({Precision::F32}).run(g, feeds).at("sum").data[0];
    const double exact = Interpreter({Precision::F64}).run(g, feeds).at("sum").data[0];
    EXPECT_EQ(rounded, 1.0) << to_string(dtype);
    EXPECT_EQ(exact, 1.0 + std::ldexp(1.0, -12));
    // A feed itself is rounded: 0.1 is 0.0999755859375 in float16, 0.10009765625 in bfloat16.
    feeds = {{"x", Tensor({1}, 0.1)}, {"y", Tensor({1}, 0.0)}};
    EXPECT_EQ(Interpreter({Precision::F32}).run(g, feeds).at("sum").data[0],
              dtype == DType::F16 ? 0.0999755859375 : 0.10009765625)
        << to_string(dtype);
  }
}
