// Rules over graphs with symbolic dimensions (ir/symbolic_dim.h): a rule's shape condition fires
// only where it holds for every value of the symbols, decided on the normal form; the shape
// analysis carries symbolic dims unchanged and keeps concat boundaries in dim arithmetic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eqsat/condition.h"
#include "eqsat/dim_facts.h"
#include "eqsat/graph_conversion.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/rule_file.h"
#include "eqsat/tensor_egraph.h"
#include "eqsat/tensor_info.h"
#include "ir/graph_builder.h"
#include "ir/symbolic_dim.h"

namespace saturate::eqsat {
namespace {

int64_t symbol(const std::string& name, int64_t lower_bound = 1) {
  return ir::symbol_dim(ir::symbol_named(name, lower_bound));
}
int64_t batch() {
  return symbol("batch");
}
int64_t sequence() {
  return symbol("sequence");
}
// A cache length: may be 0.
int64_t past() {
  return symbol("eqsat_test_past", 0);
}

// Every rule of `rules` applied once to each of its matches in the e-graph of `graph`.
std::vector<RuleStats> apply_once(const ir::Graph& graph, const std::string& rules) {
  TensorEGraph egraph;
  add_graph(egraph, graph);
  RuleCompiler compiler(nullptr);
  std::vector<TensorRewrite> rewrites = compiler.compile(parse_rules(rules, "test.rules"));
  for (const TensorRewrite& rewrite : rewrites) {
    for (const egraph::Match& match : rewrite.search(egraph)) rewrite.apply(egraph, match);
  }
  egraph.rebuild();
  return compiler.stats();
}

// y = relu(x) for an input of `dims`.
ir::Graph relu_of(const ir::Dims& dims) {
  ir::GraphBuilder b("g");
  b.output("y", b.relu(b.input("x", dims)));
  return std::move(b).finish();
}

// Whether `(relu ?x) => (relu (relu ?x)) if CONDITION` fires on relu(x) with x of `dims`; a
// match that does not is counted as rejected by its condition.
bool fires(const ir::Dims& dims, const std::string& condition) {
  std::vector<RuleStats> stats =
      apply_once(relu_of(dims), "r: (relu ?x) => (relu (relu ?x)) if " + condition);
  EXPECT_EQ(stats.at(0).applied + stats.at(0).condition_rejected, 1u) << condition;
  return stats.at(0).applied == 1;
}

// x: [batch, sequence, 768*batch, past]; its static twin: [4, 6, 3072, 0 -> 2].
ir::Dims symbolic_dims() {
  return {batch(), sequence(), ir::dim_product(768, batch()), past()};
}
ir::Dims static_dims() {
  return {4, 6, 3072, 2};
}

TEST(SymbolicConditions, EqualityIsEqualNormalForms) {
  EXPECT_TRUE(fires(symbolic_dims(), "(= (dim ?x 0) (dim ?x 0))"));
  EXPECT_TRUE(fires(symbolic_dims(), "(= (+ (dim ?x 0) (dim ?x 0)) (* 2 (dim ?x 0)))"));
  EXPECT_TRUE(fires(symbolic_dims(), "(= (dim ?x 2) (* 768 (dim ?x 0)))"));
  // batch and sequence are equal at some sizes, different at others: neither = nor != holds.
  EXPECT_FALSE(fires(symbolic_dims(), "(= (dim ?x 0) (dim ?x 1))"));
  EXPECT_FALSE(fires(symbolic_dims(), "(!= (dim ?x 0) (dim ?x 1))"));
  EXPECT_FALSE(fires(symbolic_dims(), "(= (dim ?x 0) 1)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(!= (dim ?x 0) 1)"));
  // Different at every size: batch < 768*batch.
  EXPECT_TRUE(fires(symbolic_dims(), "(!= (dim ?x 0) (dim ?x 2))"));
  EXPECT_TRUE(fires(symbolic_dims(), "(!= (dim ?x 0) 0)"));
}

TEST(SymbolicConditions, DivisibilityIsDecidedOnTheCoefficients) {
  EXPECT_TRUE(fires(symbolic_dims(), "(= (mod (dim ?x 2) 12) 0)"));
  EXPECT_TRUE(fires(symbolic_dims(), "(= (mod (+ (* 4 (dim ?x 1)) 1) 2) 1)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(= (mod (dim ?x 1) 2) 0)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(= (mod (dim ?x 1) 2) 1)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(!= (mod (dim ?x 1) 2) 0)"));
  EXPECT_TRUE(fires(symbolic_dims(), "(= (mod (* (dim ?x 0) (dim ?x 1)) (dim ?x 1)) 0)"));
}

TEST(SymbolicConditions, OrderIsDecidedByLowerBoundsOnly) {
  EXPECT_TRUE(fires(symbolic_dims(), "(>= (dim ?x 0) 1)"));
  EXPECT_TRUE(fires(symbolic_dims(), "(> (dim ?x 0) 0)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(> (dim ?x 0) 64)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(< (dim ?x 0) 64)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(<= (dim ?x 0) 1)"));
  EXPECT_TRUE(fires(symbolic_dims(), "(< (dim ?x 0) (dim ?x 2))"));
  EXPECT_FALSE(fires(symbolic_dims(), "(< (dim ?x 0) (dim ?x 1))"));
  // The cache length may be 0.
  EXPECT_TRUE(fires(symbolic_dims(), "(>= (dim ?x 3) 0)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(>= (dim ?x 3) 1)"));
  EXPECT_TRUE(fires(symbolic_dims(), "(< (rank ?x) 5)"));
}

TEST(SymbolicConditions, TheStaticTwinDecidesAtItsSizes) {
  EXPECT_TRUE(fires(static_dims(), "(= (mod (dim ?x 1) 2) 0)"));
  EXPECT_FALSE(fires(static_dims(), "(= (mod (+ (dim ?x 1) 1) 2) 0)"));
  EXPECT_TRUE(fires(static_dims(), "(< (dim ?x 0) 64)"));
  EXPECT_FALSE(fires(static_dims(), "(> (dim ?x 0) 64)"));
  EXPECT_TRUE(fires(static_dims(), "(!= (dim ?x 0) (dim ?x 1))"));
  EXPECT_TRUE(fires(static_dims(), "(= (mod -7 3) -1)"));  // C++'s %, as before
}

TEST(SymbolicConditions, HandlesAreNeverComparedAsNumbers) {
  // A symbolic dim's handle is a huge negative integer: read as a number, every one of these
  // would hold.
  EXPECT_FALSE(fires(symbolic_dims(), "(< (dim ?x 0) 0)"));
  EXPECT_FALSE(fires(symbolic_dims(), "(< (dim ?x 1) (dim ?x 0))"));
  EXPECT_FALSE(fires(symbolic_dims(), "(= (mod (dim ?x 1) 4) 0)"));
}

// Two products sharing their left operand, whose rows are `batch`: the library's merge fires as
// it does at every static batch (the split is on the weights' static columns).
TEST(SymbolicRules, MatmulsSharingAnInputMergeAtEverySize) {
  ir::GraphBuilder b("g");
  ir::ValueRef x = b.input("x", {batch(), 64});
  b.output("y1", b.matmul(x, b.weight({64, 32})));
  b.output("y2", b.matmul(x, b.weight({64, 48})));
  ir::Graph graph = std::move(b).finish();
  const std::string rule =
      "merge: (matmul ?act ?x ?a) => (split_0 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b))))\n"
      "     & (matmul ?act ?x ?b) => (split_1 (split 1 (matmul ?act ?x (concat 1 2 ?a ?b)))) "
      "if (unordered)";
  std::vector<RuleStats> stats = apply_once(graph, rule);
  EXPECT_EQ(stats.at(0).applied, 1u);
  EXPECT_EQ(stats.at(0).shape_rejected, 0u);

  // With a condition that holds at every batch, and one that holds at some batches only.
  EXPECT_EQ(apply_once(graph, rule + " (= (mod (* (dim ?x 0) 64) 16) 0)").at(0).applied, 1u);
  std::vector<RuleStats> rejected = apply_once(graph, rule + " (= (mod (dim ?x 0) 16) 0)");
  EXPECT_EQ(rejected.at(0).applied, 0u);
  EXPECT_GE(rejected.at(0).condition_rejected, 1u);
}

TEST(SymbolicShapeAnalysis, EClassesWithSymbolicTypesMerge) {
  TensorEGraph egraph;
  GraphRoot relu = add_graph(egraph, relu_of({batch(), sequence()}));
  ir::GraphBuilder b("h");
  b.output("y", b.tanh(b.input("x", {batch(), sequence()})));
  GraphRoot tanh = add_graph(egraph, std::move(b).finish());
  // The same input leaf, by name and type: one class.
  ASSERT_EQ(egraph.data(relu.root).kind, TensorData::Kind::Tensor);
  EXPECT_EQ(egraph.data(relu.root).info.type.dims, (ir::Dims{batch(), sequence()}));
  egraph.merge(relu.root, tanh.root);
  egraph.rebuild();
  EXPECT_EQ(egraph.find(relu.root), egraph.find(tanh.root));
  EXPECT_EQ(egraph.data(relu.root).kind, TensorData::Kind::Tensor);
  EXPECT_EQ(egraph.data(relu.root).info.type.dims, (ir::Dims{batch(), sequence()}));
}

// Concat boundaries on a symbolic axis are dims: `past`, then `past + sequence`; a split at one
// keeps the others on the side they are on at every size, shifted in dim arithmetic.
TEST(SymbolicShapeAnalysis, ConcatBoundariesAreDimSums) {
  auto info = [](ir::Dims dims) { return TensorInfo::of(ir::TensorType{ir::DType::F32, dims}); };
  TensorInfo a = info({past(), 64});
  TensorInfo s = info({sequence(), 64});
  TensorInfo c = info({batch(), 64});
  const int64_t total = ir::dim_sum(ir::dim_sum(past(), sequence()), batch());
  ir::TensorType output{ir::DType::F32, {total, 64}};
  std::vector<std::vector<int64_t>> boundaries = propagate_boundaries(
      ir::OpKind::Concat, ir::Attributes{{"axis", int64_t{0}}}, {&a, &s, &c}, output);
  const int64_t first = past();
  const int64_t second = ir::dim_sum(past(), sequence());
  EXPECT_EQ(boundaries[0], (std::vector<int64_t>{first, second}));
  EXPECT_TRUE(boundaries[1].empty());

  TensorInfo joined{output, boundaries};
  EXPECT_EQ(split_point(joined, 0), second);
  std::array<TensorInfo, 2> parts = split_parts(joined, 0, second);
  EXPECT_EQ(parts[0].type.dims, (ir::Dims{second, 64}));
  EXPECT_EQ(parts[1].type.dims, (ir::Dims{batch(), 64}));
  EXPECT_EQ(parts[0].boundaries[0], (std::vector<int64_t>{first}));  // past < past + sequence
  EXPECT_TRUE(parts[1].boundaries[0].empty());
  // The rest after `past`: boundary past + sequence becomes sequence.
  std::array<TensorInfo, 2> at_first = split_parts(joined, 0, first);
  EXPECT_EQ(at_first[1].type.dims, (ir::Dims{ir::dim_sum(sequence(), batch()), 64}));
  EXPECT_EQ(at_first[1].boundaries[0], (std::vector<int64_t>{sequence()}));
  EXPECT_EQ(split_sizes(output, 0, first),
            (std::vector<int64_t>{first, ir::dim_sum(sequence(), batch())}));
}

TEST(SymbolicShapeAnalysis, CutsMustBeInsideAtEverySize) {
  EXPECT_TRUE(cut_inside(3, 5));
  EXPECT_FALSE(cut_inside(5, 5));
  EXPECT_FALSE(cut_inside(0, 5));
  const int64_t total = ir::dim_sum(batch(), sequence());
  EXPECT_TRUE(cut_inside(batch(), total));
  EXPECT_FALSE(cut_inside(batch(), sequence()));  // sequence - batch may be negative
  EXPECT_FALSE(cut_inside(2, batch()));           // batch may be 1
  EXPECT_TRUE(cut_inside(2, ir::dim_sum(batch(), 2)));
  EXPECT_TRUE(provably_less(batch(), total));
  EXPECT_FALSE(provably_less(batch(), sequence()));
  EXPECT_TRUE(provably_at_most(past(), ir::dim_sum(past(), sequence())));
  EXPECT_FALSE(provably_at_most(ir::dim_sum(past(), 1), 1));
}

}  // namespace
}  // namespace saturate::eqsat
