#include <gtest/gtest.h>

#include <string>

#include "egraph/egraph.h"
#include "egraph/pattern_ast.h"
#include "egraph/symbol.h"
#include "egraph/term.h"
#include "support/error.h"

namespace saturate::egraph {
namespace {

using Graph = EGraph<Symbol>;
using Node = ENode<Symbol>;

EClassId add(Graph& egraph, const std::string& text) {
  return egraph.add_term(Term<Symbol>::parse(text));
}

TEST(Term, ParsesAndPrints) {
  Term<Symbol> term = Term<Symbol>::parse("(+ a (* b \"two words\")) ; comment");
  EXPECT_EQ(term.to_string(), "(+ a (* b \"two words\"))");
  EXPECT_EQ(term.size(), 5u);
  EXPECT_THROW(Term<Symbol>::parse("(+ a ?x)"), ParseError);
  EXPECT_THROW(Term<Symbol>::parse("(+ a"), ParseError);
  EXPECT_THROW(Term<Symbol>::parse("a b"), ParseError);
}

TEST(Term, ParseErrorsCarryLineAndColumn) {
  try {
    Term<Symbol>::parse("(+ a\n   (f ?x))");
    FAIL() << "expected a ParseError";
  } catch (const ParseError& error) {
    EXPECT_EQ(error.location().line, 2);
    EXPECT_EQ(error.location().column, 7);
  }
}

// Terms and patterns go through the one S-expression reader with brackets as label characters
// (an attribute written "[2,3]"); a list must be headed by an operator.
TEST(Term, BracketsBelongToLabelsAndListsNeedAnOperator) {
  Term<Symbol> term = Term<Symbol>::parse("(reshape[2,3] x [1])");
  EXPECT_EQ(term.to_string(), "(reshape[2,3] x [1])");
  EXPECT_EQ(term.size(), 3u);
  for (const char* text : {"()", "((f) x)", "(\"quoted head\" x"}) {
    EXPECT_THROW(Term<Symbol>::parse(text), ParseError) << text;
  }
  EXPECT_EQ(Term<Symbol>::parse("(\"quoted head\" x)").to_string(), "(\"quoted head\" x)");
  EXPECT_THROW(PatternAst<Symbol>::parse("(?f x)"), ParseError);  // variables are not operators
  EXPECT_EQ(PatternAst<Symbol>::parse("(g[0] ?x)").to_string(), "(g[0] ?x)");
}

TEST(EGraph, HashConsingDeduplicates) {
  Graph egraph;
  EClassId first = add(egraph, "(+ a (* b c))");
  EXPECT_EQ(egraph.class_count(), 5u);
  EXPECT_EQ(egraph.node_count(), 5u);
  EClassId second = add(egraph, "(+ a (* b c))");
  EXPECT_EQ(first, second);
  EXPECT_EQ(egraph.class_count(), 5u);
  add(egraph, "(* b c)");
  EXPECT_EQ(egraph.class_count(), 5u);
  // Children are part of a node's identity; so is arity.
  add(egraph, "(* c b)");
  add(egraph, "(* b)");
  EXPECT_EQ(egraph.class_count(), 7u);
  EXPECT_EQ(egraph.node_count(), 7u);
}

TEST(EGraph, LookupFindsOnlyExistingNodes) {
  Graph egraph;
  EClassId a = add(egraph, "a");
  EClassId fa = add(egraph, "(f a)");
  EXPECT_EQ(egraph.lookup(Node(Symbol("f"), {a})), fa);
  EXPECT_FALSE(egraph.lookup(Node(Symbol("g"), {a})).has_value());
  EXPECT_EQ(egraph.lookup_term(Term<Symbol>::parse("(f a)")), fa);
  EXPECT_FALSE(egraph.lookup_term(Term<Symbol>::parse("(f (f a))")).has_value());
}

TEST(EGraph, MergeReportsWhetherAnythingChanged) {
  Graph egraph;
  EClassId a = add(egraph, "a");
  EClassId b = add(egraph, "b");
  EXPECT_TRUE(egraph.merge(a, b));
  EXPECT_FALSE(egraph.merge(a, b));
  EXPECT_FALSE(egraph.merge(b, a));
  EXPECT_TRUE(egraph.equivalent(a, b));
  EXPECT_EQ(egraph.class_count(), 1u);
  EXPECT_FALSE(egraph.is_clean());
  egraph.rebuild();
  EXPECT_TRUE(egraph.is_clean());
  EXPECT_EQ(egraph.eclass(a).size(), 2u);
}

TEST(EGraph, RebuildRestoresCongruence) {
  Graph egraph;
  EClassId fa = add(egraph, "(f a)");
  EClassId fb = add(egraph, "(f b)");
  EClassId gfa = add(egraph, "(g (f a))");
  EClassId gfb = add(egraph, "(g (f b))");
  egraph.merge(add(egraph, "a"), add(egraph, "b"));
  EXPECT_FALSE(egraph.equivalent(fa, fb));  // deferred until rebuild
  std::size_t unions = egraph.rebuild();
  EXPECT_EQ(unions, 2u);
  EXPECT_TRUE(egraph.equivalent(fa, fb));
  EXPECT_TRUE(egraph.equivalent(gfa, gfb));
  EXPECT_EQ(egraph.class_count(), 3u);
  EXPECT_EQ(egraph.node_count(), 4u);  // a, b, (f a) = (f b), (g (f a)) = (g (f b))
  EXPECT_EQ(egraph.eclass(fa).size(), 1u);
}

TEST(EGraph, ManyMergesBeforeOneRebuild) {
  // A chain of successors: merging 0 with 1 makes every (s^k 0) equal to (s^k 1), which the
  // single rebuild must discover level by level.
  Graph egraph;
  std::string zero = "z0";
  std::string one = "z1";
  std::vector<EClassId> left, right;
  for (int depth = 0; depth < 20; ++depth) {
    left.push_back(add(egraph, zero));
    right.push_back(add(egraph, one));
    zero = "(s " + zero + ")";
    one = "(s " + one + ")";
  }
  egraph.merge(left[0], right[0]);
  EXPECT_EQ(egraph.rebuild(), 19u);
  for (int depth = 0; depth < 20; ++depth)
    EXPECT_TRUE(egraph.equivalent(left[depth], right[depth]));
  EXPECT_EQ(egraph.class_count(), 20u);
}

TEST(EGraph, AddWhileDirtyIsMergedByRebuild) {
  Graph egraph;
  EClassId a = add(egraph, "a");
  EClassId b = add(egraph, "b");
  EClassId fb = add(egraph, "(f b)");
  egraph.merge(a, b);
  EClassId fa = add(egraph, "(f a)");  // the memo has not seen (f a) yet
  egraph.rebuild();
  EXPECT_TRUE(egraph.equivalent(fa, fb));
  EXPECT_EQ(egraph.lookup_term(Term<Symbol>::parse("(f b)")), egraph.find(fa));
}

TEST(EGraph, ClassesByOperator) {
  Graph egraph;
  add(egraph, "(+ a (+ b c))");
  add(egraph, "(* a b)");
  egraph.rebuild();
  EXPECT_EQ(egraph.classes_with_op(Symbol("+").index()).size(), 2u);
  EXPECT_EQ(egraph.classes_with_op(Symbol("*").index()).size(), 1u);
  EXPECT_TRUE(egraph.classes_with_op(Symbol("never-used-operator").index()).empty());
  // After merging the two sums, the index lists the surviving class once.
  EClassId outer = add(egraph, "(+ a (+ b c))");
  EClassId inner = add(egraph, "(+ b c)");
  EClassId product = add(egraph, "(* a b)");
  egraph.merge(outer, inner);
  egraph.merge(outer, product);
  egraph.rebuild();
  auto sums = egraph.classes_with_op(Symbol("+").index());
  ASSERT_EQ(sums.size(), 1u);
  EXPECT_EQ(sums[0], egraph.find(outer));
  auto products = egraph.classes_with_op(Symbol("*").index());
  ASSERT_EQ(products.size(), 1u);
  EXPECT_EQ(products[0], egraph.find(outer));
}

TEST(EGraph, ClassesRangeVisitsLiveClassesOnce) {
  Graph egraph;
  EClassId a = add(egraph, "a");
  EClassId b = add(egraph, "b");
  add(egraph, "c");
  egraph.merge(a, b);
  egraph.rebuild();
  std::size_t count = 0;
  std::size_t nodes = 0;
  for (const auto& eclass : egraph.classes()) {
    EXPECT_EQ(egraph.find(eclass.id), eclass.id);
    ++count;
    nodes += eclass.size();
  }
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(nodes, 3u);
}

TEST(EGraph, StaleMemoEntriesAreDroppedEventually) {
  Graph egraph;
  std::vector<EClassId> leaves;
  for (int i = 0; i < 3000; ++i) {
    leaves.push_back(add(egraph, "(f x" + std::to_string(i) + ")"));
  }
  for (int i = 1; i < 3000; ++i) {
    egraph.merge(add(egraph, "x0"), add(egraph, "x" + std::to_string(i)));
  }
  egraph.rebuild();
  EXPECT_EQ(egraph.class_count(), 2u);
  EXPECT_LE(egraph.memo_size(), 2 * egraph.node_count() + 1024);
  EXPECT_EQ(egraph.lookup_term(Term<Symbol>::parse("(f x17)")), egraph.find(leaves[0]));
}

}  // namespace
}  // namespace saturate::egraph
