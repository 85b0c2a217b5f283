#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "pm/builder.h"
#include "pm/errors.h"
#include "pm/explain.h"
#include "pm_test_support.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;
using testing_support::example_module;

namespace {

ir::Graph graph_for_explaining() {
  ir::Graph g("explain");
  ir::ValueRef a = g.add_input("a", {4, 4});
  ir::ValueRef b = g.add_input("b", {4, 4});
  ir::ValueRef ta = {
      g.add_node(ir::OpKind::Transpose, {a}, {{"perm", std::vector<int64_t>{1, 0}}}, {"ta"}), 0};
  ir::ValueRef tb = {
      g.add_node(ir::OpKind::Transpose, {b}, {{"perm", std::vector<int64_t>{1, 0}}}, {"tb"}), 0};
  g.add_node(ir::OpKind::MatMul, {ta, tb}, {}, {"good"});
  g.add_node(ir::OpKind::MatMul, {ta, b}, {}, {"half_good"});
  ir::ValueRef r = {g.add_node(ir::OpKind::Relu, {a}, {}, {"r1"}), 0};
  g.add_node(ir::OpKind::Relu, {r}, {}, {"r2"});
  return g;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(Explain, SaysWhichRuleFires) {
  std::string text = explain(graph_for_explaining(), example_module(), "good");
  EXPECT_TRUE(contains(text, "value good = matmul(ta, tb) : f32[4 4]")) << text;
  EXPECT_TRUE(contains(text, "pattern 'TransposedProduct' (rules.py:3): a rule fires")) << text;
  EXPECT_TRUE(contains(text, "alternate 1 (line 4)")) << text;
  EXPECT_TRUE(contains(text, "match: x = a, y = b")) << text;
  EXPECT_TRUE(contains(text,
                       "rule 'product_of_transposes' (line 8) fires: the value becomes "
                       "transpose(matmul(y, x), perm=[1, 0])"))
      << text;
  EXPECT_TRUE(contains(text, "pattern 'UnaryChain' (rules.py:17): no match")) << text;
}

TEST(Explain, SaysWhereAMatchFailed) {
  std::string text = explain(graph_for_explaining(), example_module(), "half_good");
  EXPECT_TRUE(contains(text, "pattern 'TransposedProduct' (rules.py:3): no match")) << text;
  EXPECT_TRUE(contains(text,
                       "b (input) does not match transpose(y, perm=[1, 0]): it is input, "
                       "not transpose"))
      << text;
  std::string relu = explain(graph_for_explaining(), example_module(), "r1");
  EXPECT_TRUE(contains(relu, "r1 (relu) cannot be the root of matmul(")) << relu;
}

TEST(Explain, ShowsRecursiveCallsAndBacktracking) {
  std::string text = explain(graph_for_explaining(), example_module(), "r2");
  // UnaryChain at r2: the recursive alternate calls UnaryChain at r1, whose recursive
  // alternate fails at a (an input), whose base case matches.
  EXPECT_TRUE(contains(text, "UnaryChain at r2 (relu)")) << text;
  EXPECT_TRUE(contains(text, "UnaryChain at r1 (relu)")) << text;
  EXPECT_TRUE(contains(text, "UnaryChain at a (input): no alternate matched")) << text;
  EXPECT_TRUE(contains(text, "rule 'collapse_chain' (line 30) fires")) << text;
}

TEST(Explain, ReportsGuardsAndRuleGuards) {
  Module m = example_module();
  m.definitions[testing_support::kTransposedProduct].alternates[0].constraints[0] =
      guard(eq(rank(0), integer(3)), 5);
  std::string guarded = explain(graph_for_explaining(), m, "good");
  EXPECT_TRUE(contains(guarded, "guard `x.shape.rank == 3` (line 5) is false")) << guarded;
  Module r = example_module();
  r.rules[1].guards.push_back(eq(op_name(1), text("tanh")));
  std::string rule_text = explain(graph_for_explaining(), r, "r2");
  EXPECT_TRUE(
      contains(rule_text, "rule 'collapse_chain' (line 30): guard `f.name == \"tanh\"` is false"))
      << rule_text;
  EXPECT_TRUE(contains(rule_text, "matches, but no rule fires")) << rule_text;
}

TEST(Explain, NamesUnknownValues) {
  EXPECT_THROW(explain(graph_for_explaining(), example_module(), "nope"), Error);
}
