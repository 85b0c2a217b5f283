// PyPM inside the e-graph: the view sees every producer of a class, the rewrite adds the rule's
// replacement next to the matched form (constants included), and shape limits and inexpressible
// rules are reported.
#include <gtest/gtest.h>

#include <memory>

#include "cost/analytic_cost_model.h"
#include "eqsat/graph_conversion.h"
#include "eqsat/optimizer.h"
#include "eqsat/tensor_egraph.h"
#include "ir/graph_builder.h"
#include "pm/builder.h"
#include "pm/egraph_rules.h"
#include "pm/egraph_view.h"
#include "pm/errors.h"
#include "pm/module_check.h"
#include "pm_test_support.h"

namespace saturate::pm {
namespace {

using namespace build;

// Tanh(x) rewritten to Sigmoid(x) (not sound; only the mechanics are tested here).
std::shared_ptr<const Module> tanh_to_sigmoid(Term replacement = tapp("sigmoid", {tv(0)})) {
  auto module = std::make_shared<Module>();
  module->definitions.push_back(
      definition("Tanh", 1, {alternate({term("x")}, app("tanh", {v(0)}))}));
  module->rules.push_back(rule("to_sigmoid", 0, {0}, std::move(replacement)));
  check_module(*module);
  return module;
}

ir::Graph relu_graph() {
  ir::GraphBuilder b("g");
  b.output("y", b.relu(b.input("x", {4, 6})));
  return std::move(b).finish();
}

// `optimize` with no rule file, only the module's rules in the e-graph, greedy DAG extraction.
eqsat::OptimizeResult optimize_with_pypm(const ir::Graph& graph,
                                         std::shared_ptr<const Module> module,
                                         const std::string& extractor = "greedy-dag") {
  eqsat::OptimizeOptions options;
  options.extractor = extractor;
  options.extra_rules.push_back(
      [module](eqsat::CycleFilter* filter) { return compile_egraph_rules(module, filter); });
  return eqsat::optimize(graph, eqsat::RuleSet{}, cost::AnalyticCostModel(), options);
}

// The module's rewrite finds one match; applying it adds nothing and counts a shape rejection.
void expect_one_match_rejected_by_shape(eqsat::TensorEGraph& egraph,
                                        const eqsat::ExtraRules& extra) {
  std::vector<egraph::Match> matches = extra.rewrites[0].search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  size_t before = egraph.node_count();
  EXPECT_EQ(extra.rewrites[0].apply(egraph, matches[0]), 0u);
  EXPECT_EQ(egraph.node_count(), before);
  EXPECT_EQ(extra.stats()[0].shape_rejected, 1u);
}

TEST(EGraphView, EveryVisibleProducerOfAClassIsAChoice) {
  eqsat::TensorEGraph egraph;
  eqsat::GraphRoot root = eqsat::add_graph(egraph, relu_graph());
  // Make tanh(x) equivalent to relu(x): the class now has two producers.
  ir::GraphBuilder b("h");
  b.output("y", b.tanh(b.input("x", {4, 6})));
  eqsat::GraphRoot other = eqsat::add_graph(egraph, std::move(b).finish());
  egraph.merge(root.root, other.root);
  egraph.rebuild();

  EGraphView view(egraph);
  std::vector<ir::OpKind> ops;
  view.for_each_producer(root.root, [&](EGraphView::NodeRef node, uint32_t) {
    ops.push_back(view.op(node));
    EXPECT_EQ(view.num_inputs(node), 1u);
    return false;
  });
  EXPECT_EQ(ops, (std::vector<ir::OpKind>{ir::OpKind::Relu, ir::OpKind::Tanh}));
  EXPECT_EQ(view.type(root.root).dims, (ir::Dims{4, 6}));

  // The matcher finds the pattern through the second producer, and the rewrite adds the
  // replacement to the same class.
  auto module = tanh_to_sigmoid();
  eqsat::ExtraRules extra = compile_egraph_rules(module, nullptr);
  ASSERT_EQ(extra.rewrites.size(), 1u);
  std::vector<egraph::Match> matches = extra.rewrites[0].search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(egraph.find(matches[0].root()), egraph.find(root.root));
  EXPECT_EQ(extra.rewrites[0].apply(egraph, matches[0]), 1u);
  egraph.rebuild();
  EXPECT_EQ(egraph.eclass(root.root).nodes.size(), 3u);  // relu, tanh, sigmoid
  EXPECT_EQ(extra.stats()[0].applied, 1u);
}

TEST(EGraphRules, OptimizeExtractsTheRewrittenFormWhenItIsCheaper) {
  // gelu(x) is cheaper than its decomposition; a PyPM rule fusing it runs inside optimize.
  ir::GraphBuilder b("gelu");
  ir::ValueRef x = b.input("x", {8, 16});
  ir::ValueRef half = b.mul(x, b.constant(0.5));
  ir::ValueRef erf = b.erf(b.div(x, b.constant(1.4142135623730951)));
  b.output("y", b.mul(half, b.add(b.constant(1.0), erf)));
  ir::Graph graph = std::move(b).finish();

  auto module = std::make_shared<Module>();
  module->definitions.push_back(definition(
      "ErfGelu", 1,
      {alternate(
          {term("x")},
          app("mul",
              {app("mul", {v(0), constant(0.5)}),
               app("add", {constant(1.0),
                           app("erf", {app("div", {v(0), constant(1.4142135623730951)})})})}))}));
  module->rules.push_back(rule("fuse_gelu", 0, {0}, tapp("gelu", {tv(0)})));
  check_module(*module);

  eqsat::OptimizeResult result = optimize_with_pypm(graph, module);
  EXPECT_EQ(result.graph.op_histogram(), (std::map<std::string, int>{{"gelu", 1}}));
  ASSERT_EQ(result.rules.size(), 1u);
  EXPECT_EQ(result.rules[0].rule, "pypm:fuse_gelu");
  EXPECT_EQ(result.rules[0].applied, 1u);
}

TEST(EGraphRules, IllTypedReplacementIsRejectedNotAdded) {
  eqsat::TensorEGraph egraph;
  ir::GraphBuilder b("g");
  b.output("y", b.tanh(b.input("x", {4, 6})));
  eqsat::GraphRoot root = eqsat::add_graph(egraph, std::move(b).finish());
  egraph.rebuild();
  // matmul(x, x) of a 4x6 matrix does not type-check.
  eqsat::ExtraRules extra =
      compile_egraph_rules(tanh_to_sigmoid(tapp("matmul", {tv(0), tv(0)})), nullptr);
  expect_one_match_rejected_by_shape(egraph, extra);
}

TEST(EGraphRules, ReplacementsBuildScalarConstantsInTheEGraph) {
  // (x + 1) + 1 -> x + 2: the number in the replacement becomes a constant leaf, as in
  // `pm apply`, and the cheaper one-add form is extracted with that constant.
  ir::GraphBuilder b("adds");
  ir::ValueRef x = b.input("x", {4, 6});
  b.output("y", b.add(b.add(x, b.constant(1.0)), b.constant(1.0)));
  ir::Graph graph = std::move(b).finish();

  auto module = std::make_shared<Module>();
  module->definitions.push_back(definition(
      "AddOneTwice", 1,
      {alternate({term("x")}, app("add", {app("add", {v(0), constant(1.0)}), constant(1.0)}))}));
  module->rules.push_back(rule("add_two", 0, {0}, tapp("add", {tv(0), tconst(2.0)})));
  check_module(*module);

  eqsat::OptimizeResult result = optimize_with_pypm(graph, module);
  EXPECT_EQ(result.graph.op_histogram(), (std::map<std::string, int>{{"add", 1}}));
  ASSERT_EQ(result.rules.size(), 1u);
  EXPECT_EQ(result.rules[0].applied, 1u);
  std::vector<double> constants;
  for (ir::NodeId id = 0; id < result.graph.num_nodes(); ++id) {
    const ir::Node& node = result.graph.node(id);
    if (node.op != ir::OpKind::Constant) continue;
    constants.push_back(node.attrs.get_float("value"));
    EXPECT_EQ(node.outputs[0], (ir::TensorType{ir::DType::F32, {}}));
  }
  EXPECT_EQ(constants, (std::vector<double>{2.0}));
}

TEST(EGraphRules, EqualConstantsFromSeveralRewritesAreOneLeaf) {
  eqsat::TensorEGraph egraph;
  ir::GraphBuilder b("g");
  ir::ValueRef x = b.input("x", {4, 6});
  b.output("y", b.add(b.tanh(x), b.tanh(b.relu(x))));
  eqsat::add_graph(egraph, std::move(b).finish());
  egraph.rebuild();
  eqsat::ExtraRules extra =
      compile_egraph_rules(tanh_to_sigmoid(tapp("mul", {tv(0), tconst(2.0)})), nullptr);
  std::vector<egraph::Match> matches = extra.rewrites[0].search(egraph);
  ASSERT_EQ(matches.size(), 2u);
  size_t before = egraph.node_count();
  for (const egraph::Match& match : matches) EXPECT_EQ(extra.rewrites[0].apply(egraph, match), 1u);
  egraph.rebuild();
  EXPECT_EQ(egraph.node_count(), before + 3);  // two products, one constant 2
}

TEST(EGraphRules, BuildingASplitIsAClearErrorBeforeTheRun) {
  try {
    compile_egraph_rules(
        tanh_to_sigmoid(tapp("split", {tv(0)},
                             {AttrExpr{"axis", integer(1)}, AttrExpr{"sizes", ints({3, 3})}}, 1)),
        nullptr);
    FAIL() << "expected a PatternError";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("builds a split"), std::string::npos) << error.what();
  }
}

// A pre-norm residual: the rule replaces the norm with output 0 of skip_layer_norm and s with its
// output 1 (a further replacement); both name one fused e-node, so extraction can take the fused
// kernel for both values.
std::shared_ptr<const Module> skip_layer_norm_rules() {
  auto module = std::make_shared<Module>(testing_support::skip_layer_norm_module());
  check_module(*module);
  return module;
}

TEST(EGraphRules, FurtherReplacementsShareOneFusedNode) {
  eqsat::TensorEGraph egraph;
  eqsat::add_graph(egraph, testing_support::pre_norm_block());
  egraph.rebuild();
  eqsat::ExtraRules extra = compile_egraph_rules(skip_layer_norm_rules(), nullptr);
  std::vector<egraph::Match> matches = extra.rewrites[0].search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  size_t before = egraph.node_count();
  EXPECT_EQ(extra.rewrites[0].apply(egraph, matches[0]), 2u);  // the norm's class and s's
  egraph.rebuild();
  // One skip_layer_norm, its two output projections and the two index attributes.
  EXPECT_EQ(egraph.node_count(), before + 5);
  EXPECT_EQ(extra.stats()[0].applied, 1u);

  // The ILP sees that once the fused node is chosen for the norm, the sum comes free with it.
  // Greedy DAG extraction prices each class alone (the norm fused, the sum still an add, which
  // costs more than the input) and finds it only in its reuse step.
  eqsat::OptimizeResult result =
      optimize_with_pypm(testing_support::pre_norm_block(), skip_layer_norm_rules(), "ilp");
  EXPECT_EQ(result.graph.op_histogram(),
            (std::map<std::string, int>{{"skip_layer_norm", 1}, {"relu", 1}, {"ewadd", 1}}));
  eqsat::OptimizeResult greedy =
      optimize_with_pypm(testing_support::pre_norm_block(), skip_layer_norm_rules(), "greedy-dag");
  EXPECT_EQ(greedy.graph.op_histogram(), result.graph.op_histogram());
}

TEST(EGraphRules, AFurtherReplacementOfTheWrongTypeRejectsTheWholeMatch) {
  auto module = std::make_shared<Module>(*skip_layer_norm_rules());
  // s (2, 4, 8) replaced by a 1-d weight: ill-typed, so neither class changes.
  module->rules[0].also[0].term = tv(3);
  eqsat::TensorEGraph egraph;
  eqsat::add_graph(egraph, testing_support::pre_norm_block());
  egraph.rebuild();
  eqsat::ExtraRules extra = compile_egraph_rules(module, nullptr);
  expect_one_match_rejected_by_shape(egraph, extra);
}

}  // namespace
}  // namespace saturate::pm
