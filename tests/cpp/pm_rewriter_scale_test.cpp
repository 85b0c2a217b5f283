// The rewriter at scale: a realistic rule set (product of transposes, relu chains, two
// spellings of x / 2, GELU, activation fusion, double transposes, x + x) over a graph of about
// 100,000 nodes (every rewrite made, no pass cap hit); and the same rules checked numerically on
// a small instance.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/graph_builder.h"
#include "pm/builder.h"
#include "pm/format_reader.h"
#include "pm/format_writer.h"
#include "pm/rewriter.h"
#include "runtime/graph_comparison.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;

namespace {

constexpr double kSqrt2 = 1.4142135623730951;

Module rule_set() {
  Module m;
  m.source_file = "shipped.py";
  AttrExpr perm{"perm", ints({1, 0})};
  auto def = [&](Definition d) {
    m.definitions.push_back(std::move(d));
    return static_cast<uint32_t>(m.definitions.size() - 1);
  };
  uint32_t transposed_product = def(definition(
      "TransposedProduct", 2,
      {alternate(
          {term("x"), term("y")},
          app("matmul", {app("transpose", {v(0)}, {perm}), app("transpose", {v(1)}, {perm})}),
          {guard(and_(eq(rank(0), integer(2)), eq(rank(1), integer(2))))})}));
  uint32_t half = def(definition("Half", 1,
                                 {alternate({term("x")}, app("div", {v(0), constant(2.0)})),
                                  alternate({term("x")}, app("mul", {v(0), constant(0.5)}))}));
  uint32_t chain = static_cast<uint32_t>(m.definitions.size());
  def(definition("UnaryChain", 2,
                 {alternate({term("x"), op("f")},
                            app(head_var(1), {call(chain, {arg(v(0)), arg(head_var(1))})})),
                  alternate({term("x"), op("f")}, app(head_var(1), {v(0)}))}));
  uint32_t gelu = def(definition(
      "Gelu", 1,
      {alternate({term("x")},
                 app("mul", {call(half, {arg(v(0))}),
                             app("add", {app("erf", {app("div", {v(0), constant(kSqrt2)})}),
                                         constant(1.0)})}))}));
  uint32_t fuse = def(definition(
      "MatmulRelu", 2,
      {alternate({term("x"), term("y")},
                 app("relu", {app("matmul", {v(0), v(1)}, {{"activation", text("none")}})}))}));
  uint32_t double_transpose = def(definition(
      "DoubleTranspose", 1,
      {alternate({term("x")}, app("transpose", {app("transpose", {v(0)}, {perm})}, {perm}))}));
  uint32_t self_sum = def(definition("SelfSum", 3,
                                     {alternate({term("x"), op("f"), term("y")}, v(0),
                                                {match(0, app(head_var(1), {v(2), v(2)})),
                                                 guard(eq(op_name(1), text("ewadd")))})}));
  m.rules.push_back(rule("product_of_transposes", transposed_product, {0, 1},
                         tapp("transpose", {tapp("matmul", {tv(1), tv(0)})}, {perm})));
  m.rules.push_back(rule("half_as_mul", half, {0}, tapp("mul", {tv(0), tconst(0.5)})));
  m.rules.push_back(rule("collapse_relus", chain, {0, 1}, tapp(head_var(1), {tv(0)}),
                         {eq(op_name(1), text("relu"))}));
  m.rules.push_back(rule("gelu", gelu, {0}, tapp("gelu", {tv(0)})));
  m.rules.push_back(rule("fuse_relu", fuse, {0, 1},
                         tapp("matmul", {tv(0), tv(1)}, {{"activation", text("relu")}})));
  m.rules.push_back(rule("drop_double_transpose", double_transpose, {0}, tv(0)));
  m.rules.push_back(rule("sum_as_scale", self_sum, {2}, tapp("mul", {tv(0), tconst(2.0)})));
  return read_pmb(write_pmb(m));  // what a front end would ship, checked by the loader
}

// `blocks` repetitions of a block of about 21 nodes that every rule has something to do in.
ir::Graph workload(int blocks) {
  ir::GraphBuilder b("workload");
  ir::ValueRef x = b.input("x", {8, 8});
  for (int i = 0; i < blocks; ++i) {
    ir::ValueRef product = b.matmul(b.transpose(x, {1, 0}), b.transpose(b.weight({8, 8}), {1, 0}));
    ir::ValueRef r = b.relu(b.relu(b.relu(product)));
    ir::ValueRef h = b.div(r, b.constant(2.0));
    ir::ValueRef g = b.mul(h, b.add(b.erf(b.div(r, b.constant(kSqrt2))), b.constant(1.0)));
    ir::ValueRef sum = b.ewadd(g, g);
    ir::ValueRef back = b.transpose(b.transpose(sum, {1, 0}), {1, 0});
    ir::ValueRef fused = b.relu(b.matmul(back, b.weight({8, 8})));
    x = b.tanh(fused);
  }
  b.output("y", x);
  return std::move(b).finish();
}

size_t applications(const RewriteResult& result, const std::string& rule) {
  for (const RuleStatistics& s : result.rules) {
    if (s.name == rule) return s.applications;
  }
  return 0;
}

// Timing is only meaningful in an optimized build without sanitizers.

}  // namespace

TEST(RewriterScale, RulesPreserveValues) {
  ir::Graph graph = workload(3);
  RewriteResult result = rewrite(graph, rule_set());
  for (const char* rule : {"product_of_transposes", "half_as_mul", "collapse_relus", "gelu",
                           "fuse_relu", "drop_double_transpose", "sum_as_scale"}) {
    EXPECT_GE(applications(result, rule), 3u) << rule;
  }
  EXPECT_FALSE(result.hit_iteration_cap);
  EXPECT_EQ(result.graph.nodes_of(ir::OpKind::Gelu).size(), 3u);
  runtime::GraphComparison comparison = runtime::compare_graphs(graph, result.graph, 3);
  EXPECT_TRUE(comparison.finite);
  EXPECT_LT(comparison.max_relative_error, 1e-9);
}

// The rewrites at scale are checked here; their time is a benchmark's business
// (bench/pm_bench.py), not a unit test's: these machines are noisy.
TEST(RewriterScale, HundredThousandNodesRewriteCompletely) {
  ir::Graph graph = workload(4800);
  ASSERT_GT(graph.num_nodes(), 100000u);
  Module rules = rule_set();
  RewriteResult result = rewrite(graph, rules);
  EXPECT_EQ(applications(result, "gelu"), 4800u);
  EXPECT_EQ(applications(result, "product_of_transposes"), 4800u);
  EXPECT_EQ(applications(result, "fuse_relu"), 4800u);
  EXPECT_FALSE(result.hit_iteration_cap);
  std::printf("%zu nodes -> %zu nodes, %zu rewrites in %zu passes, %.3f s\n", graph.num_nodes(),
              result.graph.num_nodes(), result.applications, result.passes, result.seconds);
  RecordProperty("seconds", std::to_string(result.seconds));
}
