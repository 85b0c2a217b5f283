#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"
#include "egraph/symbol.h"
#include "egraph/term.h"

namespace saturate::egraph {
namespace {

using Graph = EGraph<Symbol>;
using SymbolPattern = Pattern<Symbol>;

EClassId add(Graph& egraph, const std::string& text) {
  return egraph.add_term(Term<Symbol>::parse(text));
}

std::size_t count(const std::vector<SearchMatches>& matches) {
  std::size_t total = 0;
  for (const SearchMatches& match : matches) total += match.substs.size();
  return total;
}

TEST(Pattern, ParsesVariablesAndLeaves) {
  SymbolPattern pattern = SymbolPattern::parse("(+ ?a (* ?b 0))");
  EXPECT_EQ(pattern.to_string(), "(+ ?a (* ?b 0))");
  ASSERT_EQ(pattern.vars().size(), 2u);
  EXPECT_EQ(pattern.vars()[0].name(), "?a");
  EXPECT_EQ(pattern.vars()[1].name(), "?b");
  EXPECT_FALSE(pattern.is_ground());
  EXPECT_TRUE(SymbolPattern::parse("(f 0 x)").is_ground());
  EXPECT_THROW(SymbolPattern::parse("(?f a)"), ParseError);
  EXPECT_THROW(SymbolPattern::parse("(f a"), ParseError);
}

TEST(Pattern, BuilderMakesTheSamePattern) {
  PatternAst<Symbol> ast;
  EClassId a = ast.add_var(Var("?a"));
  EClassId zero = ast.add_node(Symbol("0"));
  ast.add_node(Symbol("+"), {a, zero});
  EXPECT_EQ(SymbolPattern(ast).to_string(), "(+ ?a 0)");
  EXPECT_THROW(Var("x"), Error);
}

TEST(EMatch, LinearPattern) {
  Graph egraph;
  EClassId ab = add(egraph, "(+ a b)");
  EClassId cd = add(egraph, "(+ c (* d e))");
  add(egraph, "(* a b)");
  egraph.rebuild();
  std::vector<SearchMatches> matches = SymbolPattern::parse("(+ ?x ?y)").search(egraph);
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0].eclass, ab);
  EXPECT_EQ(matches[0].substs[0]["?x"], add(egraph, "a"));
  EXPECT_EQ(matches[0].substs[0]["?y"], add(egraph, "b"));
  EXPECT_EQ(matches[1].eclass, cd);
  EXPECT_EQ(matches[1].substs[0]["?y"], add(egraph, "(* d e)"));

  std::vector<SearchMatches> nested = SymbolPattern::parse("(+ ?x (* ?y ?z))").search(egraph);
  ASSERT_EQ(nested.size(), 1u);
  EXPECT_EQ(nested[0].eclass, cd);
  EXPECT_EQ(nested[0].substs[0]["?z"], add(egraph, "e"));
}

TEST(EMatch, NonLinearPatternNeedsOneClass) {
  Graph egraph;
  EClassId xx = add(egraph, "(+ x x)");
  EClassId xy = add(egraph, "(+ x y)");
  egraph.rebuild();
  SymbolPattern twice = SymbolPattern::parse("(+ ?a ?a)");
  std::vector<SearchMatches> matches = twice.search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].eclass, xx);
  EXPECT_EQ(matches[0].substs[0]["?a"], add(egraph, "x"));
  EXPECT_NE(twice.program().to_string().find("compare"), std::string::npos);

  // Once x = y, (+ x y) matches too.
  egraph.merge(add(egraph, "x"), add(egraph, "y"));
  egraph.rebuild();
  matches = twice.search(egraph);
  ASSERT_EQ(matches.size(), 1u);  // (+ x x) and (+ x y) are now one class
  EXPECT_EQ(matches[0].eclass, egraph.find(xy));
  EXPECT_TRUE(egraph.equivalent(xx, xy));
}

TEST(EMatch, GroundSubtermsAreLookedUp) {
  Graph egraph;
  EClassId hit = add(egraph, "(+ x (* y 0))");
  add(egraph, "(+ x (* y 1))");
  add(egraph, "(+ z (* w 0))");
  egraph.rebuild();
  SymbolPattern pattern = SymbolPattern::parse("(+ ?a (* y 0))");
  EXPECT_NE(pattern.program().to_string().find("lookup"), std::string::npos);
  std::vector<SearchMatches> matches = pattern.search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].eclass, hit);
  EXPECT_EQ(matches[0].substs[0]["?a"], add(egraph, "x"));

  // A ground pattern is one lookup.
  std::vector<SearchMatches> ground = SymbolPattern::parse("(* w 0)").search(egraph);
  ASSERT_EQ(ground.size(), 1u);
  EXPECT_TRUE(ground[0].substs[0].empty());
  EXPECT_TRUE(SymbolPattern::parse("(* w 7)").search(egraph).empty());
}

TEST(EMatch, BoundVariablesTurnSubtermsIntoLookups) {
  Graph egraph;
  EClassId hit = add(egraph, "(f a (g a))");
  add(egraph, "(f a (g b))");
  egraph.rebuild();
  SymbolPattern pattern = SymbolPattern::parse("(f ?x (g ?x))");
  std::vector<SearchMatches> matches = pattern.search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].eclass, hit);
}

TEST(EMatch, LeafConstantsMatchAsNodes) {
  // (matmul 0 ?a ?b): the 0 is an attribute leaf, matched like any childless node.
  Graph egraph;
  EClassId hit = add(egraph, "(matmul 0 x w)");
  add(egraph, "(matmul 1 x w)");
  egraph.rebuild();
  std::vector<SearchMatches> matches = SymbolPattern::parse("(matmul 0 ?a ?b)").search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].eclass, hit);
}

TEST(EMatch, SeveralMatchesPerClass) {
  Graph egraph;
  EClassId ab = add(egraph, "(+ a b)");
  EClassId ba = add(egraph, "(+ b a)");
  egraph.merge(ab, ba);
  egraph.rebuild();
  std::vector<SearchMatches> matches = SymbolPattern::parse("(+ ?x ?y)").search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  ASSERT_EQ(matches[0].substs.size(), 2u);
  EXPECT_NE(matches[0].substs[0]["?x"], matches[0].substs[1]["?x"]);

  // Matches also multiply through children with several nodes.
  add(egraph, "(f (+ a b))");
  egraph.rebuild();
  EXPECT_EQ(count(SymbolPattern::parse("(f (+ ?x ?y))").search(egraph)), 2u);
}

TEST(EMatch, VariableRootMatchesEveryClass) {
  Graph egraph;
  add(egraph, "(f a b)");
  egraph.rebuild();
  std::vector<SearchMatches> matches = SymbolPattern::parse("?x").search(egraph);
  EXPECT_EQ(matches.size(), 3u);
  for (const SearchMatches& match : matches) EXPECT_EQ(match.substs[0]["?x"], match.eclass);
}

TEST(EMatch, SearchLimitCapsSubstitutions) {
  Graph egraph;
  for (int i = 0; i < 10; ++i) add(egraph, "(f x" + std::to_string(i) + ")");
  egraph.rebuild();
  SymbolPattern pattern = SymbolPattern::parse("(f ?x)");
  EXPECT_EQ(count(pattern.search(egraph)), 10u);
  EXPECT_EQ(count(pattern.search(egraph, 4)), 4u);
  EXPECT_TRUE(pattern.search(egraph, 0).empty());
}

TEST(EMatch, SearchOneClass) {
  Graph egraph;
  EClassId fa = add(egraph, "(f a)");
  add(egraph, "(f b)");
  egraph.rebuild();
  SearchMatches matches = SymbolPattern::parse("(f ?x)").search_eclass(egraph, fa);
  ASSERT_EQ(matches.substs.size(), 1u);
  EXPECT_EQ(matches.substs[0]["?x"], add(egraph, "a"));
}

TEST(EMatch, NodeFilterHidesNodes) {
  Graph egraph;
  EClassId fa = add(egraph, "(f a)");
  EClassId ga = add(egraph, "(g a)");
  egraph.merge(fa, ga);
  add(egraph, "(h (f a))");
  egraph.rebuild();
  Symbol f("f");
  egraph.set_node_filter([f](EClassId, const ENode<Symbol>& node) { return node.op != f; });
  std::vector<SearchMatches> matches = SymbolPattern::parse("(f ?x)").search(egraph);
  EXPECT_TRUE(matches.empty());
  EXPECT_EQ(SymbolPattern::parse("(g ?x)").search(egraph).size(), 1u);
  // Lookups respect the filter as well: (f a) is found by the hash-cons but hidden.
  EXPECT_TRUE(SymbolPattern::parse("(f a)").search(egraph).empty());
  EXPECT_TRUE(SymbolPattern::parse("(h (f ?x))").search(egraph).empty());
  EXPECT_EQ(SymbolPattern::parse("(h (g ?x))").search(egraph).size(), 1u);
  egraph.set_node_filter(nullptr);
  EXPECT_EQ(SymbolPattern::parse("(f ?x)").search(egraph).size(), 1u);
}

TEST(Pattern, InstantiateAddsTheTerm) {
  Graph egraph;
  EClassId a = add(egraph, "a");
  Subst subst;
  subst.insert(Var("?x"), a);
  EClassId id = SymbolPattern::parse("(g ?x (h ?x))").instantiate(egraph, subst);
  EXPECT_EQ(id, add(egraph, "(g a (h a))"));
  EXPECT_THROW(SymbolPattern::parse("(g ?y)").instantiate(egraph, subst), Error);
  EXPECT_THROW(egraph.add(ENode<Symbol>(Symbol("g"), {EClassId(999u)})), Error);
}

TEST(Pattern, CanonicalFormIgnoresVariableNames) {
  auto first = SymbolPattern::parse("(matmul ?a ?x)").canonicalize();
  auto second = SymbolPattern::parse("(matmul ?b ?y)").canonicalize();
  auto third = SymbolPattern::parse("(matmul ?x ?x)").canonicalize();
  EXPECT_EQ(first.key, "(matmul ?0 ?1)");
  EXPECT_EQ(first.key, second.key);
  EXPECT_EQ(third.key, "(matmul ?0 ?0)");
  ASSERT_EQ(second.original_vars.size(), 2u);
  EXPECT_EQ(second.original_vars[0].name(), "?b");
  EXPECT_EQ(second.original_vars[1].name(), "?y");
}

// The e-graph's S-expression reader (patterns, terms) overflowed its stack on 100,000 nested
// lists (issue 15).
TEST(Pattern, ParseRejectsNestingDeeperThanTheLimit) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "(f ";
  try {
    SymbolPattern::parse(deep);
    ADD_FAILURE() << "expected a parse error";
  } catch (const ParseError& error) {
    EXPECT_NE(std::string(error.what()).find("nesting deeper than 1000 levels"), std::string::npos)
        << error.what();
    EXPECT_EQ(error.location().column, 3001);
  }
  std::string chain = "x";
  for (int i = 0; i < 1000; ++i) chain = "(f " + chain + ")";
  EXPECT_TRUE(SymbolPattern::parse(chain).is_ground());
}

}  // namespace
}  // namespace saturate::egraph
