#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/rule_file.h"
#include "ir/graph_builder.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "runtime/graph_comparison.h"
#include "search/match_applier.h"
#include "search_test_support.h"

using namespace saturate;
using namespace saturate::search;
using saturate::search::testing_support::library_rules;

namespace {

const cost::AnalyticCostModel model;

// Compiled rules and their statistics, as taso_search holds them.
struct Compiled {
  eqsat::RuleCompiler compiler{nullptr};
  std::vector<eqsat::TensorRewrite> rewrites;
  explicit Compiled(std::string_view text)
      : rewrites(compiler.compile(eqsat::parse_rules(text, "test.rules"))) {}
};

ExactCost exact_graph_cost(const ir::Graph& graph) {
  ExactCost total = 0;
  for (double price : cost::graph_cost(graph, model).per_node) total += exact_cost(price);
  return total;
}

ir::Graph two_branches(bool swapped) {
  ir::GraphBuilder b("branches");
  ir::ValueRef x = b.input("x", {4, 8});
  ir::ValueRef w = b.weight({8, 8}, "w");
  ir::ValueRef r;
  ir::ValueRef t;
  if (swapped) {
    t = b.tanh(x);
    r = b.relu(b.matmul(x, w));
  } else {
    r = b.relu(b.matmul(x, w));
    t = b.tanh(x);
  }
  b.output("y", b.ewadd(r, t));
  return std::move(b).finish();
}

}  // namespace

TEST(MatchApplier, HashIgnoresNodeOrderAndNames) {
  Compiled rules("matmul-fuse-relu: (relu (matmul none ?a ?b)) => (matmul relu ?a ?b)");
  MatchApplier a(two_branches(false), rules.rewrites, rules.compiler.stats(), model);
  MatchApplier b(two_branches(true), rules.rewrites, rules.compiler.stats(), model);
  EXPECT_EQ(a.graph_hash(), b.graph_hash());
}

TEST(MatchApplier, AppliesOneMatchAndKeepsTheRestOfTheGraph) {
  Compiled rules("matmul-fuse-relu: (relu (matmul none ?a ?b)) => (matmul relu ?a ?b)");
  ir::Graph graph = two_branches(false);
  MatchApplier applier(graph, rules.rewrites, rules.compiler.stats(), model);
  ASSERT_EQ(applier.match_count(), 1u);
  AppliedMatch applied = applier.apply(0);
  ASSERT_EQ(applied.outcome, MatchOutcome::Rewritten);
  EXPECT_NE(applied.hash, applier.graph_hash());
  ir::Graph rewritten = applier.rewritten_graph();
  std::map<std::string, int> expected{{"matmul", 1}, {"tanh", 1}, {"ewadd", 1}};
  EXPECT_EQ(rewritten.op_histogram(), expected) << ir::write_text(rewritten);
  EXPECT_LT(runtime::compare_graphs(graph, rewritten).max_relative_error, 1e-12);
  // Applying again starts from the original graph, not from the last rewrite.
  EXPECT_EQ(applier.apply(0).hash, applied.hash);
}

TEST(MatchApplier, ReportsRejectedAndUnchangedMatches) {
  Compiled rules(
      "bad-shape: (matmul none ?a ?b) => (matmul none ?b ?a)\n"
      "commute: (ewadd ?a ?b) => (ewadd ?b ?a)\n"
      "only-square: (tanh ?x) => (relu ?x) if (= (dim ?x 0) (dim ?x 1))\n");
  ir::GraphBuilder b("rejects");
  ir::ValueRef x = b.input("x", {4, 8});
  ir::ValueRef m = b.matmul(x, b.weight({8, 8}, "w"));
  b.output("y", b.ewadd(b.tanh(m), b.tanh(m)));
  ir::Graph graph = std::move(b).finish();
  MatchApplier applier(graph, rules.rewrites, rules.compiler.stats(), model);
  std::map<std::string, MatchOutcome> outcomes;
  for (size_t i = 0; i < applier.match_count(); ++i) {
    outcomes[rules.rewrites[applier.rule_of(i)].name()] = applier.apply(i).outcome;
  }
  EXPECT_EQ(outcomes.at("bad-shape"), MatchOutcome::ShapeRejected);
  EXPECT_EQ(outcomes.at("commute"), MatchOutcome::Unchanged);  // tanh(m) + tanh(m): same node
  EXPECT_EQ(outcomes.at("only-square"), MatchOutcome::ConditionRejected);
}

TEST(MatchApplier, RejectsARewriteThatWouldBeCyclic) {
  // Merging the two products makes the second product's weight, computed from the first one,
  // an input of the merged product: a cycle.
  Compiled rules(
      "merge: (matmul ?act ?x ?a) => (split_0 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))\n"
      "     & (matmul ?act ?x ?b) => (split_1 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))\n");
  ir::GraphBuilder b("chain");
  ir::ValueRef x = b.input("x", {4, 4});
  ir::ValueRef m1 = b.matmul(x, b.weight({4, 4}, "w"));
  b.output("y", b.matmul(x, b.relu(m1)));
  ir::Graph graph = std::move(b).finish();
  MatchApplier applier(graph, rules.rewrites, rules.compiler.stats(), model);
  ASSERT_EQ(applier.match_count(), 2u);  // (m1, m2) and (m2, m1); (m, m) pairs are dropped
  for (size_t i = 0; i < applier.match_count(); ++i) {
    EXPECT_EQ(applier.apply(i).outcome, MatchOutcome::Cyclic);
  }
}

// What apply() says of a rewritten graph without building it (hash, cost, size) is what the
// built graph has, on every match of the shipped rules in reduced models.
TEST(MatchApplier, ReadsHashCostAndSizeAsTheBuiltGraphHasThem) {
  eqsat::RuleSet rules = library_rules();
  eqsat::RuleCompiler compiler(nullptr);
  std::vector<eqsat::TensorRewrite> rewrites = compiler.compile(rules);
  for (const char* name : {"squeezenet", "inception_v3", "bert", "nasrnn", "resnext50"}) {
    ir::Graph graph = models::find_model(name)->build({.reduced = true});
    MatchApplier applier(graph, rewrites, compiler.stats(), model);
    EXPECT_EQ(applier.graph_cost(), exact_graph_cost(graph)) << name;
    size_t rewritten = 0;
    // Every few matches keeps the test fast while covering every rule that matches.
    for (size_t i = 0; i < applier.match_count(); i += 3) {
      AppliedMatch applied = applier.apply(i);
      if (applied.outcome != MatchOutcome::Rewritten) continue;
      ++rewritten;
      ir::Graph built = applier.rewritten_graph();
      std::string where = std::string(name) + " " + rewrites[applied.rule].name();
      EXPECT_EQ(applied.cost, exact_graph_cost(built)) << where;
      EXPECT_EQ(applied.nodes, built.num_nodes()) << where;
      EXPECT_EQ(applied.hash, MatchApplier(built, rewrites, compiler.stats(), model).graph_hash())
          << where;
    }
    EXPECT_GT(rewritten, 0u) << name;
  }
}
