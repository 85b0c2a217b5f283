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

// Every slice the view shows, as (axis, width of the input's axis, start, end, class).
struct ViewSlice {
  int64_t axis, input_width, start, end;
  uint32_t eclass;
  bool operator==(const ViewSlice&) const = default;
};

std::vector<ViewSlice> view_slices(const eqsat::TensorEGraph& egraph, const EGraphView& view) {
  std::vector<ViewSlice> slices;
  for (egraph::EClassId value : view.tensor_classes()) {
    view.for_each_producer(value, [&](EGraphView::NodeRef node, uint32_t) {
      if (view.op(node) != ir::OpKind::Slice) return false;
      int64_t axis = view.attrs(node).get_int("axis");
      slices.push_back({axis, view.type(view.input(node, 0)).dims.at(static_cast<size_t>(axis)),
                        view.attrs(node).get_int("start"), view.attrs(node).get_int("end"),
                        egraph.find(value).value()});
      return false;
    });
  }
  return slices;
}

TEST(EGraphView, ASplitPartIsASliceOfEveryTensorItWasCutFromOnTheSameAxis) {
  // A 3-way split is a chain of two binary splits in the e-graph: x -> [0, 3) and rest (9 wide)
  // -> [0, 4) and [4, 9) of rest. The view shows each part as a slice of rest and of x (and rest
  // itself as x's [3, 12)).
  ir::GraphBuilder b("g");
  std::vector<ir::ValueRef> parts = b.split(b.input("x", {2, 12}), 1, {3, 4, 5});
  for (size_t k = 0; k < parts.size(); ++k) b.output("y" + std::to_string(k), b.relu(parts[k]));
  eqsat::TensorEGraph egraph;
  eqsat::add_graph(egraph, std::move(b).finish());
  EGraphView view(egraph);
  std::vector<ViewSlice> slices = view_slices(egraph, view);
  ASSERT_EQ(slices.size(), 6u);
  auto find = [&](int64_t width, int64_t start, int64_t end) -> const ViewSlice* {
    for (const ViewSlice& slice : slices) {
      if (slice.axis == 1 && slice.input_width == width && slice.start == start &&
          slice.end == end) {
        return &slice;
      }
    }
    return nullptr;
  };
  const ViewSlice* first = find(12, 0, 3);
  const ViewSlice* middle = find(12, 3, 7);
  const ViewSlice* last = find(12, 7, 12);
  ASSERT_TRUE(first && middle && last);
  ASSERT_TRUE(find(9, 0, 4) && find(9, 4, 9) && find(12, 3, 12));
  EXPECT_EQ(find(9, 0, 4)->eclass, middle->eclass);
  EXPECT_EQ(find(9, 4, 9)->eclass, last->eclass);
  EXPECT_NE(first->eclass, middle->eclass);
}

TEST(EGraphView, SplitsOnAnotherAxisAreNotComposed) {
  // x (6, 12) cut on axis 1 into 4 + 8, the 8-wide part cut on axis 0 into 2 + 4 rows: those
  // rows are slices of the part on axis 0 only, never of x.
  ir::GraphBuilder b("g");
  std::vector<ir::ValueRef> columns = b.split(b.input("x", {6, 12}), 1, {4, 8});
  std::vector<ir::ValueRef> rows = b.split(columns[1], 0, {2, 4});
  b.output("a", b.relu(columns[0]));
  b.output("b", b.relu(rows[0]));
  b.output("c", b.relu(rows[1]));
  eqsat::TensorEGraph egraph;
  eqsat::add_graph(egraph, std::move(b).finish());
  EGraphView view(egraph);
  std::vector<ViewSlice> slices = view_slices(egraph, view);
  ASSERT_EQ(slices.size(), 4u);  // x's [0, 4) and [4, 12) on axis 1, the part's rows on axis 0
  size_t on_rows = 0;
  for (const ViewSlice& slice : slices) {
    if (slice.axis == 0) {
      ++on_rows;
      EXPECT_EQ(slice.input_width, 6);  // rows of the (6, 8) part
      EXPECT_TRUE((slice.start == 0 && slice.end == 2) || (slice.start == 2 && slice.end == 6));
    } else {
      EXPECT_EQ(slice.input_width, 12);
    }
  }
  EXPECT_EQ(on_rows, 2u);
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
