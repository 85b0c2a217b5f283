// egg's classic math tests on the arithmetic language with constant folding.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "egraph/extract.h"
#include "egraph/runner.h"
#include "egraph_math_language.h"

namespace saturate::egraph::testing {
namespace {

using MathRewrite = Rewrite<MathOp, ConstantFolding>;
using MathRunner = Runner<MathOp, ConstantFolding>;

Term<MathOp> term(const char* text) {
  return Term<MathOp>::parse(text);
}

bool not_zero(const MathGraph& egraph, const Match& match) {
  return egraph.data(match.subst["?x"]) != 0;
}

std::vector<MathRewrite> math_rules() {
  std::vector<MathRewrite> rules;
  auto add = [&rules](const char* name, const char* lhs, const char* rhs) {
    rules.push_back(MathRewrite::parse(name, lhs, rhs));
  };
  add("commute-add", "(+ ?a ?b)", "(+ ?b ?a)");
  add("commute-mul", "(* ?a ?b)", "(* ?b ?a)");
  add("add-0", "(+ ?a 0)", "?a");
  add("mul-0", "(* ?a 0)", "0");
  add("mul-1", "(* ?a 1)", "?a");
  add("mul-shift", "(<< ?a 1)", "(* ?a 2)");
  for (MathRewrite& rule :
       MathRewrite::parse_both_ways("div-assoc", "(/ (* ?x ?y) ?z)", "(* ?x (/ ?y ?z))"))
    rules.push_back(std::move(rule));
  rules.push_back(MathRewrite::parse("cancel-div", "(/ ?x ?x)", "1").with_condition(not_zero));
  return rules;
}

TEST(Math, ProvesHalfTimesTwoIsIdentity) {
  MathRunner runner;
  EClassId start = runner.add_term(term("(* (/ a 2) 2)"));
  runner.run(math_rules());
  EClassId a = runner.egraph.add_term(term("a"));
  EXPECT_TRUE(runner.egraph.equivalent(start, a)) << runner.report().to_string();
}

TEST(Math, ShiftBecomesMultiplication) {
  MathRunner runner;
  EClassId start = runner.add_term(term("(/ (<< a 1) 2)"));
  runner.run(math_rules());
  EXPECT_TRUE(runner.egraph.equivalent(start, runner.egraph.add_term(term("a"))));
}

TEST(Math, DivisionByZeroIsNotCancelled) {
  // Constant folding knows the divisor is 0, so the condition of cancel-div fails.
  MathRunner runner;
  EClassId start = runner.add_term(term("(/ (- 3 3) (- 3 3))"));
  runner.run(math_rules());
  EXPECT_FALSE(runner.egraph.equivalent(start, runner.egraph.add_term(term("1"))));
}

TEST(Math, SimplifiesByExtraction) {
  MathRunner runner;
  EClassId start = runner.add_term(term("(+ 0 (* 1 a))"));
  runner.run(math_rules());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
  TreeExtractor extractor(runner.egraph, AstSize{});
  auto [cost, best] = extractor.find_best(start);
  EXPECT_EQ(best.to_string(), "a");
  EXPECT_DOUBLE_EQ(cost, 1.0);
}

TEST(Math, ConstantFoldingDuringRewriting) {
  MathRunner runner;
  EClassId start = runner.add_term(term("(+ (* x (- 3 3)) (* 2 (<< 1 2)))"));
  runner.run(math_rules());
  TreeExtractor extractor(runner.egraph, AstSize{});
  EXPECT_EQ(extractor.extract(start).to_string(), "8");
}

TEST(Extract, DepthCostAndSharedSubterms) {
  MathGraph egraph;
  EClassId root = egraph.add_term(term("(+ (* a b) (* a b))"));
  egraph.rebuild();
  TreeExtractor by_size(egraph, AstSize{});
  EXPECT_DOUBLE_EQ(by_size.cost(root), 7.0);  // tree cost counts the shared product twice
  Term<MathOp> best = by_size.extract(root);
  EXPECT_EQ(best.to_string(), "(+ (* a b) (* a b))");
  EXPECT_EQ(best.size(), 4u);  // but the term stores it once
  TreeExtractor by_depth(egraph, AstDepth{});
  EXPECT_DOUBLE_EQ(by_depth.cost(root), 3.0);
}

TEST(Extract, SkipsFilteredNodes) {
  MathGraph egraph;
  EClassId root = egraph.add_term(term("(+ a 0)"));
  egraph.merge(root, egraph.add_term(term("a")));
  egraph.rebuild();
  EXPECT_EQ(TreeExtractor(egraph, AstSize{}).extract(root).to_string(), "a");
  egraph.set_node_filter(
      [](EClassId, const ENode<MathOp>& node) { return node.op.kind != MathOp::Kind::Symbol; });
  TreeExtractor filtered(egraph, AstSize{});
  EXPECT_TRUE(std::isinf(filtered.cost(root)));
  EXPECT_THROW(filtered.extract(root), Error);
}

}  // namespace
}  // namespace saturate::egraph::testing
