#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cost/analytic_cost_model.h"
#include "eqsat/rule_file.h"
#include "ir/graph_builder.h"
#include "ir/text_format.h"
#include "runtime/graph_comparison.h"
#include "search/taso_search.h"
#include "search_test_support.h"

using namespace saturate;
using namespace saturate::search;
using saturate::search::testing_support::library_rules;

namespace {

const cost::AnalyticCostModel cost_model;

double max_error(const ir::Graph& a, const ir::Graph& b) {
  return runtime::compare_graphs(a, b).max_relative_error;
}

ir::Graph shared_input_matmuls() {
  ir::GraphBuilder b("shared-input");
  ir::ValueRef x = b.input("x", {256, 1024});
  b.output("y1", b.matmul(x, b.weight({1024, 256}), ir::Activation::Relu));
  b.output("y2", b.matmul(x, b.weight({1024, 256}), ir::Activation::Relu));
  return std::move(b).finish();
}

ir::Graph one_sum() {
  ir::GraphBuilder b("sum");
  b.output("y", b.ewadd(b.input("x", {4, 4}), b.input("z", {4, 4})));
  return std::move(b).finish();
}

TasoOptions with_alpha(double alpha) {
  TasoOptions options;
  options.alpha = alpha;
  return options;
}

}  // namespace

TEST(TasoSearch, MergesMatmulsThatShareAnInput) {
  ir::Graph graph = shared_input_matmuls();
  TasoResult result = taso_search(graph, library_rules(), cost_model);
  EXPECT_EQ(result.graph.op_histogram().at("matmul"), 1) << ir::write_text(result.graph);
  EXPECT_LT(result.optimized_cost, result.original_cost);
  EXPECT_LT(max_error(graph, result.graph), 1e-12);
  EXPECT_NE(
      std::find(result.best_path.begin(), result.best_path.end(), "merge-matmuls-sharing-left"),
      result.best_path.end());
  EXPECT_GE(result.expansion_of_best, 1u);
  EXPECT_GT(result.seconds_to_best, 0);
  EXPECT_LE(result.seconds_to_best, result.total_seconds);
}

TEST(TasoSearch, FusesReluIntoConvolution) {
  ir::GraphBuilder b("conv-relu");
  ir::ValueRef x = b.input("x", {1, 4, 8, 8});
  b.output("y", b.relu(b.conv(x, 8, 3, 3)));
  ir::Graph graph = std::move(b).finish();
  TasoResult result = taso_search(graph, library_rules(), cost_model);
  EXPECT_FALSE(result.graph.op_histogram().contains("relu")) << ir::write_text(result.graph);
  EXPECT_EQ(result.best_path, std::vector<std::string>{"conv-fuse-relu"});
  EXPECT_LT(max_error(graph, result.graph), 1e-12);
}

TEST(TasoSearch, WithoutRulesReturnsTheInput) {
  ir::Graph graph = shared_input_matmuls();
  TasoResult result = taso_search(graph, eqsat::RuleSet{}, cost_model);
  EXPECT_TRUE(result.graph == graph);
  EXPECT_EQ(result.optimized_cost, result.original_cost);
  EXPECT_EQ(result.expansions, 1u);
  EXPECT_EQ(result.stop_reason, TasoStopReason::Exhausted);
  EXPECT_EQ(result.seconds_to_best, 0);
  EXPECT_TRUE(result.best_path.empty());
}

TEST(TasoSearch, DedupesGraphsByStructure) {
  // x + z -> z + x -> x + z (seen): two graphs in all, each expanded once.
  eqsat::RuleSet rules = eqsat::parse_rules("commute: (ewadd ?a ?b) => (ewadd ?b ?a)", "t.rules");
  TasoResult result = taso_search(one_sum(), rules, cost_model);
  EXPECT_EQ(result.stop_reason, TasoStopReason::Exhausted);
  EXPECT_EQ(result.expansions, 2u);
  EXPECT_EQ(result.candidates.matches, 2u);
  EXPECT_EQ(result.candidates.kept, 1u);
  EXPECT_EQ(result.candidates.duplicate_rejected, 1u);
}

TEST(TasoSearch, AlphaOneKeepsOnlyCheaperGraphs) {
  eqsat::RuleSet rules = eqsat::parse_rules("commute: (ewadd ?a ?b) => (ewadd ?b ?a)", "t.rules");
  TasoResult result = taso_search(one_sum(), rules, cost_model, with_alpha(1.0));
  EXPECT_EQ(result.expansions, 1u);
  EXPECT_EQ(result.candidates.kept, 0u);
  EXPECT_EQ(result.candidates.too_costly_rejected, 1u);
}

TEST(TasoSearch, RespectsTheBudget) {
  ir::Graph graph = shared_input_matmuls();
  size_t calls = 0;
  TasoOptions options;
  options.budget = 3;
  options.progress = [&calls](const TasoProgress& progress) {
    ++calls;
    EXPECT_EQ(progress.expansions, calls);
    EXPECT_LE(progress.queue_size, 3 - calls);  // trimmed to what can still be expanded
  };
  TasoResult result = taso_search(graph, library_rules(), cost_model, options);
  EXPECT_EQ(result.expansions, 3u);
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(result.stop_reason, TasoStopReason::Budget);
  EXPECT_LE(result.optimized_cost, result.original_cost);

  options.budget = 0;
  result = taso_search(graph, library_rules(), cost_model, options);
  EXPECT_EQ(result.expansions, 0u);
  EXPECT_TRUE(result.graph == graph);
}

TEST(TasoSearch, StopsAtTheTimeLimit) {
  TasoOptions options;
  options.time_limit_seconds = 0;
  TasoResult result = taso_search(shared_input_matmuls(), library_rules(), cost_model, options);
  EXPECT_EQ(result.stop_reason, TasoStopReason::TimeLimit);
  EXPECT_EQ(result.expansions, 0u);
}

TEST(TasoSearch, CountsEveryMatchOnce) {
  TasoResult result = taso_search(shared_input_matmuls(), library_rules(), cost_model);
  const CandidateCounts& c = result.candidates;
  EXPECT_EQ(c.matches, c.shape_rejected + c.condition_rejected + c.split_rejected + c.unchanged +
                           c.cycle_rejected + c.generated);
  EXPECT_EQ(c.generated,
            c.kept + c.duplicate_rejected + c.too_large_rejected + c.too_costly_rejected);
}

TEST(TasoSearch, RejectsBadOptions) {
  EXPECT_THROW(taso_search(one_sum(), {}, cost_model, with_alpha(0)), Error);
  TasoOptions options;
  options.max_growth = -1;
  EXPECT_THROW(taso_search(one_sum(), {}, cost_model, options), Error);
}
