#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "ir/op_registry.h"
#include "pm/builder.h"
#include "pm/errors.h"
#include "pm/rewriter.h"
#include "pm_test_support.h"
#include "runtime/graph_comparison.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;
using testing_support::example_module;

namespace {

// y = matmul(transpose(a), transpose(b)) with a: [3 4], b: [5 3]; z = relu(y).
ir::Graph transposed_product() {
  ir::GraphBuilder b("tp");
  ir::ValueRef a = b.input("a", {3, 4});
  ir::ValueRef w = b.weight({5, 3}, "b");
  ir::ValueRef product = b.matmul(b.transpose(a, {1, 0}), b.transpose(w, {1, 0}));
  b.output("y", product);
  b.output("z", b.relu(product));
  return std::move(b).finish();
}

size_t count(const ir::Graph& graph, ir::OpKind op) {
  return graph.nodes_of(op).size();
}

void expect_same_values(const ir::Graph& before, const ir::Graph& after) {
  runtime::GraphComparison comparison = runtime::compare_graphs(before, after, 7);
  EXPECT_TRUE(comparison.finite);
  EXPECT_LT(comparison.max_relative_error, 1e-9) << comparison.worst_output;
}

const RuleStatistics& stats(const RewriteResult& result, const std::string& rule) {
  for (const RuleStatistics& s : result.rules) {
    if (s.name == rule) return s;
  }
  throw Error("no rule " + rule);
}

}  // namespace

TEST(Rewriter, ProductOfTransposesBecomesTransposeOfProduct) {
  ir::Graph graph = transposed_product();
  ir::Graph copy = graph;
  RewriteResult result = rewrite(graph, example_module());
  EXPECT_TRUE(graph == copy);  // the input is untouched
  const ir::Graph& out = result.graph;
  EXPECT_EQ(stats(result, "product_of_transposes").applications, 1u);
  EXPECT_EQ(stats(result, "product_of_transposes").matches, 1u);
  EXPECT_EQ(result.applications, 1u);
  EXPECT_EQ(result.passes, 2u);
  EXPECT_FALSE(result.hit_iteration_cap);
  // The old transposes and matmul are dead and gone: one transpose of one matmul(b, a).
  EXPECT_EQ(count(out, ir::OpKind::Transpose), 1u);
  EXPECT_EQ(count(out, ir::OpKind::MatMul), 1u);
  ir::NodeId matmul = out.nodes_of(ir::OpKind::MatMul)[0];
  EXPECT_EQ(out.value_name(out.node(matmul).inputs[0]), "b");
  EXPECT_EQ(out.value_name(out.node(matmul).inputs[1]), "a");
  // Outputs keep their names; y now is the new transpose, z still relu of it.
  ASSERT_EQ(out.outputs().size(), 2u);
  EXPECT_EQ(out.outputs()[0].name, "y");
  EXPECT_EQ(out.node(out.outputs()[0].value.node).op, ir::OpKind::Transpose);
  EXPECT_EQ(out.outputs()[1].name, "z");
  const ir::Node& relu = out.node(out.outputs()[1].value.node);
  EXPECT_EQ(relu.op, ir::OpKind::Relu);
  EXPECT_EQ(relu.inputs[0], out.outputs()[0].value);
  // Surviving values keep their names; new ones get fresh ones.
  EXPECT_TRUE(out.find_value("a"));
  EXPECT_TRUE(out.find_value(copy.value_name(copy.outputs()[1].value)));
  expect_same_values(graph, out);
}

TEST(Rewriter, GuardsOfThePatternApply) {
  // Rank-3 operands: TransposedProduct's guards rule them out (and the IR would not let a
  // rank-3 transpose take perm [1, 0] anyway, so use rank 2 and a guard that fails).
  Module m = example_module();
  m.definitions[testing_support::kTransposedProduct].alternates[0].constraints[0] =
      guard(eq(rank(0), integer(3)), 5);
  ir::Graph graph = transposed_product();
  RewriteResult result = rewrite(graph, m);
  EXPECT_EQ(result.applications, 0u);
  EXPECT_TRUE(result.graph == graph);
  EXPECT_EQ(result.passes, 1u);
}

TEST(Rewriter, CollapsesUnaryChains) {
  ir::Graph graph = testing_support::relu_chain(6);
  RewriteResult result = rewrite(graph, example_module());
  EXPECT_EQ(count(result.graph, ir::OpKind::Relu), 1u);
  EXPECT_EQ(result.graph.num_nodes(), 2u);  // a and one relu
  EXPECT_EQ(result.graph.outputs()[0].name, "y");
  // The first relu already is f(x): rewriting it would change nothing and is skipped.
  EXPECT_GE(stats(result, "collapse_chain").identity_skips, 1u);
  EXPECT_FALSE(result.hit_iteration_cap);
  expect_same_values(graph, result.graph);
}

TEST(Rewriter, RuleGuardsChooseTheRule) {
  // Two rules on UnaryChain: the first only for tanh chains, the second for any.
  Module m = example_module();
  m.rules.clear();
  m.rules.push_back(rule("tanh_only", testing_support::kUnaryChain, {0, 1},
                         tapp("sigmoid", {tv(0)}), {eq(op_name(1), text("tanh"))}, 40));
  m.rules.push_back(
      rule("any", testing_support::kUnaryChain, {0, 1}, tapp(head_var(1), {tv(0)}), {}, 41));
  ir::GraphBuilder b("g");
  ir::ValueRef a = b.input("a", {4, 4});
  b.output("r", b.relu(b.relu(a)));
  b.output("t", b.tanh(b.tanh(a)));
  ir::Graph graph = std::move(b).finish();
  RewriteResult result = rewrite(graph, m);
  // Pass 1: relu(relu(a)) -> relu(a) by `any`; tanh(a) -> sigmoid(a) by `tanh_only`, which
  // leaves tanh(sigmoid(a)) -> sigmoid(sigmoid(a)), also by `tanh_only`. Pass 2: the sigmoid
  // chain -> sigmoid(a) by `any`.
  EXPECT_EQ(stats(result, "tanh_only").applications, 2u);
  EXPECT_EQ(stats(result, "any").applications, 2u);
  EXPECT_EQ(result.passes, 3u);
  EXPECT_EQ(result.graph.node(result.graph.outputs()[0].value.node).op, ir::OpKind::Relu);
  EXPECT_EQ(result.graph.node(result.graph.outputs()[1].value.node).op, ir::OpKind::Sigmoid);
}

TEST(Rewriter, ReportsTheIterationCap) {
  // relu(x) -> tanh(x) and tanh(x) -> relu(x) never settle.
  Module m;
  m.definitions.push_back(definition("R", 1, {alternate({term("x")}, app("relu", {v(0)}))}));
  m.definitions.push_back(definition("T", 1, {alternate({term("x")}, app("tanh", {v(0)}))}));
  m.rules.push_back(rule("to_tanh", 0, {0}, tapp("tanh", {tv(0)})));
  m.rules.push_back(rule("to_relu", 1, {0}, tapp("relu", {tv(0)})));
  ir::Graph graph = testing_support::relu_chain(1);
  RewriteResult result = rewrite(graph, m, {.max_passes = 5, .match = {}});
  EXPECT_TRUE(result.hit_iteration_cap);
  EXPECT_EQ(result.passes, 5u);
  EXPECT_EQ(result.applications, 5u);
  EXPECT_EQ(result.graph.num_nodes(), 2u);               // no garbage left behind
  EXPECT_EQ(count(result.graph, ir::OpKind::Tanh), 1u);  // 5 flips from relu
}

TEST(Rewriter, IllTypedReplacementIsAnErrorAndTheInputIsUntouched) {
  // matmul(x, y) for matmul(transpose(x), transpose(y)): [3 4] x [5 3] does not multiply.
  Module m = example_module();
  m.rules[0].replacement = tapp("matmul", {tv(0), tv(1)});
  ir::Graph graph = transposed_product();
  ir::Graph copy = graph;
  try {
    rewrite(graph, m);
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("rules.py:8: rule 'product_of_transposes'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("ill-typed"), std::string::npos) << message;
    EXPECT_NE(message.find("f32[3 4], f32[5 3]"), std::string::npos) << message;
  }
  EXPECT_TRUE(graph == copy);
}

TEST(Rewriter, OpVariableHeadsKeepTheMatchedAttributesUnlessOverridden) {
  // Fuse(x, y, f) := relu(f(x, y)) where f.name == "matmul"  ->  f(x, y, activation="relu").
  Module m;
  m.definitions.push_back(definition(
      "Fuse", 3,
      {alternate({term("x"), term("y"), op("f")}, app("relu", {app(head_var(2), {v(0), v(1)})}),
                 {guard(eq(op_name(2), text("matmul")))})}));
  m.rules.push_back(rule("fuse_relu", 0, {0, 1, 2},
                         tapp(head_var(2), {tv(0), tv(1)}, {{"activation", text("relu")}})));
  ir::GraphBuilder b("fuse");
  ir::ValueRef a = b.input("a", {4, 8});
  b.output("y", b.relu(b.matmul(a, b.weight({8, 2}))));
  ir::Graph graph = std::move(b).finish();
  RewriteResult result = rewrite(graph, m);
  ASSERT_EQ(result.applications, 1u);
  EXPECT_EQ(count(result.graph, ir::OpKind::Relu), 0u);
  ir::NodeId fused = result.graph.outputs()[0].value.node;
  EXPECT_EQ(result.graph.node(fused).op, ir::OpKind::MatMul);
  EXPECT_EQ(result.graph.node(fused).attrs.get_activation(), ir::Activation::Relu);
  expect_same_values(graph, result.graph);
}

TEST(Rewriter, ConstantsInReplacements) {
  // Half's division by two becomes a multiplication by a new scalar constant 0.5.
  Module m = example_module();
  m.rules.clear();
  m.rules.push_back(
      rule("half_as_mul", testing_support::kHalf, {0}, tapp("mul", {tv(0), tconst(0.5)})));
  ir::GraphBuilder b("half");
  ir::ValueRef a = b.input("a", {4, 4});
  b.output("y", b.div(b.exp(a), b.constant(2.0)));
  ir::Graph graph = std::move(b).finish();
  RewriteResult result = rewrite(graph, m);
  // Applied once: the mul it builds is Half's second alternate, and rebuilding it is identity.
  EXPECT_EQ(result.applications, 1u);
  EXPECT_EQ(count(result.graph, ir::OpKind::Div), 0u);
  ASSERT_EQ(count(result.graph, ir::OpKind::Constant), 1u);  // the 2.0 is dead
  ir::NodeId constant = result.graph.nodes_of(ir::OpKind::Constant)[0];
  EXPECT_EQ(result.graph.node(constant).attrs.get_float("value"), 0.5);
  EXPECT_TRUE(result.graph.node(constant).attrs.get_ints("shape").empty());
  expect_same_values(graph, result.graph);
}

TEST(Rewriter, ReplacingWithABoundValueDropsTheMatchedSubgraph) {
  // relu(relu(x)) -> relu(x) as "the inner value": Twice(x, y) := relu(y) where y <= relu(x).
  Module m;
  m.definitions.push_back(definition(
      "Twice", 2,
      {alternate({term("x"), term("y")}, app("relu", {v(1)}), {match(1, app("relu", {v(0)}))})}));
  m.rules.push_back(rule("idempotent", 0, {1}, tv(0)));
  ir::Graph graph = testing_support::relu_chain(4);
  RewriteResult result = rewrite(graph, m);
  EXPECT_EQ(count(result.graph, ir::OpKind::Relu), 1u);
  EXPECT_EQ(result.graph.num_nodes(), 2u);
  // The surviving relu is an original node with its original name.
  EXPECT_EQ(result.graph.value_name(result.graph.outputs()[0].value), "r1");
  expect_same_values(graph, result.graph);
}

TEST(Rewriter, KeepsUnrelatedDeadCodeAndInputs) {
  ir::Graph graph("g");
  ir::ValueRef a = graph.add_input("a", {4});
  graph.add_input("unused", {4});
  graph.add_node(ir::OpKind::Tanh, {a}, {}, {"dead"});
  ir::ValueRef r = {graph.add_node(ir::OpKind::Relu, {a}, {}, {"r"}), 0};
  graph.add_output("y", {graph.add_node(ir::OpKind::Relu, {r}, {}, {"rr"}), 0});
  RewriteResult result = rewrite(graph, example_module());
  EXPECT_TRUE(result.graph.find_value("unused"));
  EXPECT_TRUE(result.graph.find_value("dead"));  // was dead before: not the rewriter's business
  EXPECT_FALSE(result.graph.find_value("r"));
  EXPECT_FALSE(result.graph.find_value("rr"));
  EXPECT_EQ(count(result.graph, ir::OpKind::Relu), 1u);
}

TEST(Rewriter, RejectsInvalidModules) {
  Module m = example_module();
  m.rules[0].params = {0, 9};
  EXPECT_THROW(rewrite(transposed_product(), m), PatternError);
}

TEST(Rewriter, FurtherReplacementsShareTheFusedNode) {
  ir::Graph graph = testing_support::pre_norm_block();
  RewriteResult result = rewrite(graph, testing_support::skip_layer_norm_module());
  EXPECT_EQ(stats(result, "fuse").applications, 1u);
  // One fused node gives both values: the old sum and norm are gone.
  EXPECT_EQ(result.graph.op_histogram(),
            (std::map<std::string, int>{{"skip_layer_norm", 1}, {"relu", 1}, {"ewadd", 1}}));
  expect_same_values(graph, result.graph);
}

TEST(Rewriter, AFurtherReplacementThatReadsAValueComputedFromItIsSkipped) {
  // The pattern binds the norm y too; replacing s by relu(y), which is computed from s, would
  // make s depend on itself once its uses move, so the rule does not fire.
  Module module;
  module.definitions.push_back(definition(
      "PreNorm", 6,
      {alternate({term("y"), term("s"), term("x"), term("skip"), term("g"), term("b")}, v(0),
                 {match(0, app("layernorm", {v(1), v(4), v(5)})),
                  match(1, app("ewadd", {v(2), v(3)}))})}));
  Rule fuse = rule("fuse", 0, {0, 1, 2, 3, 4, 5}, tapp("tanh", {tv(0)}));
  fuse.also.push_back({1, tapp("relu", {tv(0)})});
  module.rules.push_back(std::move(fuse));
  RewriteResult result = rewrite(testing_support::pre_norm_block(), module);
  EXPECT_EQ(stats(result, "fuse").applications, 0u);
  EXPECT_GE(stats(result, "fuse").cycle_skips, 1u);
  EXPECT_TRUE(result.graph == testing_support::pre_norm_block());
}
