#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "egraph/multipattern.h"
#include "egraph/rewrite.h"
#include "egraph/search_cache.h"
#include "egraph/symbol.h"
#include "egraph/term.h"
#include "egraph_math_language.h"

namespace saturate::egraph {
namespace {

using Graph = EGraph<Symbol>;
using Rw = Rewrite<Symbol>;

EClassId add(Graph& egraph, const std::string& text) {
  return egraph.add_term(Term<Symbol>::parse(text));
}

std::size_t apply_all(Graph& egraph, const Rw& rule) {
  std::size_t changed = 0;
  for (const Match& match : rule.search(egraph)) changed += rule.apply(egraph, match);
  egraph.rebuild();
  return changed;
}

// TENSAT's example e-graph: three products of x and one of y.
Graph three_matmuls_on_x_one_on_y() {
  Graph egraph;
  add(egraph, "(matmul x w1)");
  add(egraph, "(matmul x w2)");
  add(egraph, "(matmul x w3)");
  add(egraph, "(matmul y w4)");
  egraph.rebuild();
  return egraph;
}

Rw merge_matmuls_rule() {
  return Rw::parse_multi(
      "merge-matmul", {"(matmul ?x ?a)", "(matmul ?x ?b)"},
      {"(split0 (matmul ?x (concat ?a ?b)))", "(split1 (matmul ?x (concat ?a ?b)))"});
}

TEST(Rewrite, AppliesAndMergesWithTheMatchedClass) {
  Graph egraph;
  EClassId ab = add(egraph, "(+ a b)");
  egraph.rebuild();
  Rw commute = Rw::parse("commute", "(+ ?x ?y)", "(+ ?y ?x)");
  EXPECT_EQ(apply_all(egraph, commute), 1u);
  EXPECT_TRUE(egraph.equivalent(ab, add(egraph, "(+ b a)")));
  EXPECT_EQ(apply_all(egraph, commute), 0u);  // nothing new the second time
}

TEST(Rewrite, CustomSearcherHandsItsPayloadToTheApplier) {
  // A searcher that is not a pattern (PyPM's matcher plugs in this way): it finds the class of
  // `a` and passes the term to add along with the match.
  Graph egraph;
  EClassId a = add(egraph, "a");
  egraph.rebuild();
  Rw custom(
      "custom",
      [a](const Graph&, std::size_t limit) {
        std::vector<Match> matches;
        if (limit > 0) matches.push_back(Match{{a}, {}, std::make_shared<std::string>("(f b)")});
        return matches;
      },
      [](Graph& graph, const Match& match) -> std::size_t {
        const auto& text = *static_cast<const std::string*>(match.payload.get());
        return graph.merge(graph.add_term(Term<Symbol>::parse(text)), match.root()) ? 1 : 0;
      });
  EXPECT_FALSE(custom.is_multi_pattern());
  EXPECT_TRUE(custom.search(egraph, 0).empty());
  EXPECT_EQ(apply_all(egraph, custom), 1u);
  EXPECT_TRUE(egraph.equivalent(a, add(egraph, "(f b)")));
}

TEST(Rewrite, RejectsUnboundRightHandSideVariables) {
  EXPECT_THROW(Rw::parse("bad", "(f ?x)", "(g ?y)"), Error);
  EXPECT_THROW(Rw::parse_multi("bad", {"(f ?x)", "(g ?x)"}, {"(h ?x)"}), Error);
  EXPECT_THROW(Rw("none", {}, std::vector<Pattern<Symbol>>{}), Error);
}

TEST(Rewrite, ConditionDecidesPerMatch) {
  using testing::MathGraph;
  using testing::MathOp;
  using MathRewrite = Rewrite<MathOp, testing::ConstantFolding>;
  MathGraph egraph;
  EClassId aa = egraph.add_term(Term<MathOp>::parse("(/ a a)"));
  EClassId zz = egraph.add_term(Term<MathOp>::parse("(/ z z)"));
  egraph.merge(egraph.add_term(Term<MathOp>::parse("z")),
               egraph.add_term(Term<MathOp>::parse("0")));
  egraph.rebuild();
  MathRewrite cancel = MathRewrite::parse("cancel", "(/ ?x ?x)", "1")
                           .with_condition([](const MathGraph& graph, const Match& match) {
                             return graph.data(match.subst["?x"]) != 0;
                           });
  EXPECT_TRUE(cancel.has_condition());
  std::vector<Match> matches = cancel.search(egraph);
  ASSERT_EQ(matches.size(), 2u);
  std::size_t changed = 0;
  for (const Match& match : matches) changed += cancel.apply(egraph, match);
  egraph.rebuild();
  EXPECT_EQ(changed, 1u);
  EClassId one = egraph.add_term(Term<MathOp>::parse("1"));
  EXPECT_TRUE(egraph.equivalent(aa, one));
  EXPECT_FALSE(egraph.equivalent(zz, one));
}

TEST(Rewrite, ApplyFunctionGetsTheMatch) {
  Graph egraph;
  EClassId fa = add(egraph, "(f a)");
  egraph.rebuild();
  Rw rule("custom", {Pattern<Symbol>::parse("(f ?x)")}, [](Graph& graph, const Match& match) {
    EClassId wrapped = graph.add(ENode<Symbol>(Symbol("wrap"), {match.subst["?x"]}));
    return graph.merge(wrapped, match.root()) ? std::size_t{1} : std::size_t{0};
  });
  EXPECT_EQ(apply_all(egraph, rule), 1u);
  EXPECT_TRUE(egraph.equivalent(fa, add(egraph, "(wrap a)")));
}

TEST(MultiPattern, SharedVariablesMustAgree) {
  Graph egraph;
  EClassId fxa = add(egraph, "(f x a)");
  EClassId gxb = add(egraph, "(g x b)");
  EClassId gyc = add(egraph, "(g y c)");
  egraph.rebuild();
  Rw rule = Rw::parse_multi("pair", {"(f ?x ?a)", "(g ?x ?b)"}, {"(F ?x ?a ?b)", "(G ?x ?a ?b)"});
  EXPECT_TRUE(rule.is_multi_pattern());
  std::vector<Match> matches = rule.search(egraph);
  ASSERT_EQ(matches.size(), 1u);
  ASSERT_EQ(matches[0].roots.size(), 2u);
  EXPECT_EQ(matches[0].roots[0], fxa);
  EXPECT_EQ(matches[0].roots[1], gxb);
  EXPECT_EQ(matches[0].subst["?b"], add(egraph, "b"));

  EXPECT_EQ(apply_all(egraph, rule), 2u);
  // Each right-hand side joined the class its own source pattern matched.
  EXPECT_TRUE(egraph.equivalent(fxa, add(egraph, "(F x a b)")));
  EXPECT_TRUE(egraph.equivalent(gxb, add(egraph, "(G x a b)")));
  // (g y c) shares no ?x with (f x a): no match, nothing added.
  EXPECT_FALSE(egraph.lookup_term(Term<Symbol>::parse("(G y a c)")).has_value());
  EXPECT_FALSE(egraph.lookup_term(Term<Symbol>::parse("(G x a c)")).has_value());
  EXPECT_FALSE(egraph.equivalent(gyc, gxb));
}

TEST(MultiPattern, NoMatchWhenSharedVariableDisagrees) {
  Graph egraph;
  add(egraph, "(f x a)");
  add(egraph, "(g y b)");
  egraph.rebuild();
  Rw rule = Rw::parse_multi("pair", {"(f ?x ?a)", "(g ?x ?b)"}, {"(F ?a ?b)", "(G ?a ?b)"});
  EXPECT_TRUE(rule.search(egraph).empty());
  // Once x = y they agree.
  egraph.merge(add(egraph, "x"), add(egraph, "y"));
  egraph.rebuild();
  EXPECT_EQ(rule.search(egraph).size(), 1u);
}

TEST(MultiPattern, MatchesEveryCompatiblePair) {
  // TENSAT's example: matmuls sharing an input pair up, including each with itself.
  Graph egraph = three_matmuls_on_x_one_on_y();
  Rw rule = merge_matmuls_rule();
  EXPECT_EQ(rule.search(egraph).size(), 3u * 3u + 1u);
  EXPECT_EQ(rule.search(egraph, 4).size(), 4u);
}

TEST(MultiPattern, DistinctRootsDropsMatchesOfOneClassTwice) {
  Graph egraph = three_matmuls_on_x_one_on_y();
  Rw rule = merge_matmuls_rule();
  rule.with_distinct_roots();
  EXPECT_TRUE(rule.requires_distinct_roots());
  const std::vector<Match> matches = rule.search(egraph);
  EXPECT_EQ(matches.size(), 3u * 2u);  // ordered pairs of different matmuls on x; none on y
  for (const Match& match : matches) EXPECT_NE(match.roots[0], match.roots[1]);
}

TEST(MultiPattern, OrderedRootsKeepOneOrderOfEachCombination) {
  Graph egraph;
  add(egraph, "(matmul x w1)");
  add(egraph, "(matmul x w2)");
  add(egraph, "(matmul x w3)");
  egraph.rebuild();
  Rw rule = Rw::parse_multi(
      "merge-three", {"(matmul ?x ?a)", "(matmul ?x ?b)", "(matmul ?x ?c)"},
      {"(split0 (matmul ?x (concat ?a ?b ?c)))", "(split1 (matmul ?x (concat ?a ?b ?c)))",
       "(split2 (matmul ?x (concat ?a ?b ?c)))"});
  EXPECT_EQ(rule.search(egraph).size(), 27u);  // every triple, repeats included
  rule.with_ordered_roots();
  const std::vector<Match> matches = rule.search(egraph);
  ASSERT_EQ(matches.size(), 1u);  // the three matmuls, once
  EXPECT_LT(matches[0].roots[0], matches[0].roots[1]);
  EXPECT_LT(matches[0].roots[1], matches[0].roots[2]);
}

TEST(MultiPattern, PatternsWithoutSharedVariablesFormTheProduct) {
  Graph egraph;
  add(egraph, "(f a)");
  add(egraph, "(f b)");
  add(egraph, "(g c)");
  egraph.rebuild();
  Rw rule = Rw::parse_multi("product", {"(f ?x)", "(g ?y)"}, {"(h ?x ?y)", "(h ?y ?x)"});
  EXPECT_EQ(rule.search(egraph).size(), 2u);
}

TEST(MultiPattern, JoinOfThreePatterns) {
  std::vector<std::vector<RootedSubst>> lists(3);
  auto subst = [](std::initializer_list<std::pair<const char*, std::uint32_t>> bindings) {
    Subst result;
    for (const auto& [name, id] : bindings) result.insert(Var(name), EClassId(id));
    return result;
  };
  lists[0] = {{EClassId(1u), subst({{"?x", 10}})}, {EClassId(2u), subst({{"?x", 11}})}};
  lists[1] = {{EClassId(3u), subst({{"?x", 10}, {"?y", 20}})},
              {EClassId(4u), subst({{"?x", 11}, {"?y", 21}})},
              {EClassId(5u), subst({{"?x", 10}, {"?y", 21}})}};
  lists[2] = {{EClassId(6u), subst({{"?y", 21}})}};
  std::vector<Match> joined = join_matches(lists);
  ASSERT_EQ(joined.size(), 2u);
  for (const Match& match : joined) {
    EXPECT_EQ(match.roots.size(), 3u);
    EXPECT_EQ(match.subst["?y"], EClassId(21u));
  }
  EXPECT_EQ(join_matches(lists, 1).size(), 1u);
}

TEST(SearchCache, RulesSharingACanonicalPatternSearchOnce) {
  Graph egraph;
  add(egraph, "(matmul x w1)");
  add(egraph, "(matmul x w2)");
  egraph.rebuild();
  Rw first = Rw::parse_multi("first", {"(matmul ?x ?a)", "(matmul ?x ?b)"},
                             {"(left ?a ?b)", "(right ?a ?b)"});
  Rw second = Rw::parse("second", "(matmul ?in ?weight)", "(mm ?in ?weight)");
  PatternSearchCache<Graph> cache(egraph);
  std::vector<Match> first_matches = first.search(cache, kNoLimit);
  std::vector<Match> second_matches = second.search(cache, kNoLimit);
  EXPECT_EQ(cache.searches(), 1u);
  EXPECT_EQ(cache.reuses(), 2u);
  EXPECT_EQ(first_matches.size(), 4u);
  ASSERT_EQ(second_matches.size(), 2u);
  // Substitutions come back under each rule's own variable names.
  EXPECT_EQ(second_matches[0].subst["?in"], add(egraph, "x"));
  EXPECT_EQ(first_matches[0].subst["?x"], add(egraph, "x"));
}

}  // namespace
}  // namespace saturate::egraph
