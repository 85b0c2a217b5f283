// Incremental (semi-naive) e-matching: node stamps, searches that skip old matches, and a Runner
// that grows the same e-graph with it as without it.

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"
#include "egraph/runner.h"
#include "egraph/scheduler.h"
#include "egraph/symbol.h"

namespace saturate::egraph {
namespace {

using Graph = EGraph<Symbol>;
using Rw = Rewrite<Symbol>;
using SymbolRunner = Runner<Symbol>;

Term<Symbol> term(const char* text) {
  return Term<Symbol>::parse(text);
}

// The stamp of the only node of a one-node class, or of the class's node with this label.
NodeStamp stamp(const Graph& egraph, EClassId id, const char* label) {
  const auto& eclass = egraph.eclass(id);
  for (std::size_t i = 0; i < eclass.nodes.size(); ++i) {
    if (eclass.nodes[i].op == Symbol(label)) return eclass.stamps[i];
  }
  ADD_FAILURE() << "no node " << label << " in e" << id.value();
  return {};
}

std::size_t match_count(const std::vector<SearchMatches>& found) {
  std::size_t count = 0;
  for (const SearchMatches& matches : found) count += matches.substs.size();
  return count;
}

TEST(NodeStamps, NewNodesCarryTheNextGeneration) {
  Graph egraph;
  EXPECT_EQ(egraph.generation(), 0u);
  EClassId fa = egraph.add_term(term("(f a)"));
  egraph.rebuild();
  EXPECT_EQ(egraph.generation(), 1u);
  EXPECT_EQ(stamp(egraph, fa, "f").form, 1u);
  EXPECT_EQ(stamp(egraph, fa, "f").placed, 1u);
  EClassId gb = egraph.add_term(term("(g b)"));
  egraph.rebuild();
  EXPECT_EQ(stamp(egraph, gb, "g").form, 2u);
  EXPECT_EQ(stamp(egraph, fa, "f").form, 1u);  // untouched
}

TEST(NodeStamps, MergingRenewsThePlaceOfMovedNodesAndTheFormOfTheirParents) {
  Graph egraph;
  EClassId ha = egraph.add_term(term("(h a)"));
  EClassId a = egraph.add_term(term("a"));
  EClassId fb = egraph.add_term(term("(f b)"));
  EClassId b = egraph.add_term(term("b"));
  egraph.rebuild();  // generation 1
  // Both leaves have one parent; whichever class is merged away, its leaf moves.
  egraph.merge(a, b);
  egraph.rebuild();  // generation 2
  EClassId kept = egraph.find(a);
  bool a_kept = kept == a;
  NodeStamp moved = stamp(egraph, kept, a_kept ? "b" : "a");
  NodeStamp stayed = stamp(egraph, kept, a_kept ? "a" : "b");
  EXPECT_EQ(moved.form, 1u);
  EXPECT_EQ(moved.placed, 2u);
  EXPECT_EQ(stayed.form, 1u);
  EXPECT_EQ(stayed.placed, 1u);
  // The parent of the merged-away leaf changed its child: a new form.
  NodeStamp renamed = stamp(egraph, a_kept ? fb : ha, a_kept ? "f" : "h");
  NodeStamp unchanged = stamp(egraph, a_kept ? ha : fb, a_kept ? "h" : "f");
  EXPECT_EQ(renamed.form, 2u);
  EXPECT_EQ(unchanged.form, 1u);
}

TEST(NodeStamps, DuplicatesKeepTheOldestStamps) {
  Graph egraph;
  EClassId fa = egraph.add_term(term("(f a)"));
  EClassId a = egraph.add_term(term("a"));
  EClassId b = egraph.add_term(term("b"));
  egraph.rebuild();  // generation 1
  EClassId fb = egraph.add_term(term("(f b)"));
  egraph.merge(fa, fb);
  egraph.rebuild();  // generation 2: (f a) and (f b) share a class
  egraph.merge(a, b);
  egraph.rebuild();  // generation 3: both are one node now
  const auto& eclass = egraph.eclass(fa);
  ASSERT_EQ(eclass.nodes.size(), 1u);
  // (f a) kept its form and place since generation 1; (f b), renamed to it, would say 3.
  EXPECT_EQ(eclass.stamps[0].form, 1u);
  EXPECT_EQ(eclass.stamps[0].placed, 1u);
}

TEST(IncrementalSearch, FindsOnlyMatchesWithANewNode) {
  Graph egraph;
  egraph.add_term(term("(+ a b)"));
  egraph.rebuild();  // generation 1
  auto pattern = Pattern<Symbol>::parse("(+ ?x ?y)");
  EXPECT_EQ(match_count(pattern.search(egraph, kNoLimit, 1)), 0u);
  EClassId cd = egraph.add_term(term("(+ c d)"));
  egraph.rebuild();  // generation 2
  std::vector<SearchMatches> found = pattern.search(egraph, kNoLimit, 1);
  ASSERT_EQ(match_count(found), 1u);
  EXPECT_EQ(found[0].eclass, egraph.find(cd));
  EXPECT_EQ(match_count(pattern.search(egraph, kNoLimit, 0)), 2u);
  EXPECT_EQ(match_count(pattern.search(egraph, kNoLimit, 2)), 0u);
}

TEST(IncrementalSearch, AMovedRootIsOldButAMovedChildIsNew) {
  Graph egraph;
  EClassId h = egraph.add_term(term("(h (g b))"));
  EClassId gb = egraph.add_term(term("(g b)"));
  EClassId fa = egraph.add_term(term("(f a)"));
  egraph.rebuild();  // generation 1
  // (g b) has a parent and (f a) none, so (f a) moves into the class of (g b).
  egraph.merge(gb, fa);
  egraph.rebuild();  // generation 2
  ASSERT_EQ(egraph.find(fa), egraph.find(gb));
  // (f ?x) matched (f a) in its old class at generation 1: nothing new.
  EXPECT_EQ(match_count(Pattern<Symbol>::parse("(f ?x)").search(egraph, kNoLimit, 1)), 0u);
  // (h (f ?x)) is new: (h ...) now reaches (f a).
  std::vector<SearchMatches> found =
      Pattern<Symbol>::parse("(h (f ?x))").search(egraph, kNoLimit, 1);
  ASSERT_EQ(match_count(found), 1u);
  EXPECT_EQ(found[0].eclass, egraph.find(h));
}

TEST(IncrementalSearch, LookupsCountTheirNodes) {
  Graph egraph;
  egraph.add_term(term("(f a (g a))"));
  egraph.rebuild();  // generation 1
  // (g ?x) is looked up once ?x is bound; it is old, and so is the match.
  auto pattern = Pattern<Symbol>::parse("(f ?x (g ?x))");
  ASSERT_NE(pattern.program().to_string().find("lookup"), std::string::npos);
  EXPECT_EQ(match_count(pattern.search(egraph, kNoLimit, 0)), 1u);
  EXPECT_EQ(match_count(pattern.search(egraph, kNoLimit, 1)), 0u);
  // A new (g b) moved into the class of (g a) makes (f b (g b)) new, through the lookup only.
  EClassId fb = egraph.add_term(term("(f b (g a))"));
  EClassId gb = egraph.add_term(term("(g b)"));
  egraph.rebuild();  // generation 2
  egraph.merge(egraph.add_term(term("(g a)")), gb);
  egraph.rebuild();  // generation 3
  std::vector<SearchMatches> found = pattern.search(egraph, kNoLimit, 2);
  ASSERT_EQ(match_count(found), 1u);
  EXPECT_EQ(found[0].eclass, egraph.find(fb));
}

TEST(IncrementalSearch, PatternsWithoutNodesCannotBeSearchedIncrementally) {
  Graph egraph;
  egraph.add_term(term("(f a)"));
  egraph.rebuild();
  EXPECT_FALSE(Pattern<Symbol>::parse("?x").supports_incremental_search());
  EXPECT_FALSE(Pattern<Symbol>::parse("(f a)").supports_incremental_search());
  EXPECT_TRUE(Pattern<Symbol>::parse("(f ?x)").supports_incremental_search());
  EXPECT_THROW(Pattern<Symbol>::parse("?x").search(egraph, kNoLimit, 1), Error);
}

std::vector<Rw> arithmetic_rules() {
  std::vector<Rw> rules;
  rules.push_back(Rw::parse("commute-add", "(+ ?a ?b)", "(+ ?b ?a)"));
  rules.push_back(Rw::parse("commute-mul", "(* ?a ?b)", "(* ?b ?a)"));
  rules.push_back(Rw::parse("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"));
  rules.push_back(Rw::parse("assoc-mul", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)"));
  rules.push_back(Rw::parse("distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))"));
  rules.push_back(Rw::parse("factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))"));
  rules.push_back(Rw::parse("cancel-sub", "(- ?a ?a)", "0"));
  rules.push_back(Rw::parse("double", "(+ ?a ?a)", "(* 2 ?a)"));
  return rules;
}

const char* const kTerms[] = {
    "(+ a (+ b (+ c d)))",
    "(* (+ a b) (+ c d))",
    "(- (* x (+ y z)) (+ (* x y) (* x z)))",
    "(+ (* a b) (* a (+ b c)))",
    "(* (+ a b) (* (+ c d) (+ e f)))",
    "(+ a (+ b (+ c (+ d (+ e (+ f g))))))",
};

SymbolRunner arithmetic_runner(bool incremental, std::unique_ptr<Scheduler> scheduler) {
  SymbolRunner runner;
  runner.with_scheduler(std::move(scheduler))
      .with_incremental_search(incremental)
      .with_iteration_limit(6)
      .with_node_limit(1'000'000)
      .with_time_limit(std::chrono::seconds(60));
  for (const char* text : kTerms) runner.add_term(term(text));
  return runner;
}

// Runs the rules with and without incremental search and checks that both grow the same e-graph.
void expect_same_growth(const std::vector<Rw>& rules, std::size_t iterations,
                        std::size_t at_least_nodes) {
  SymbolRunner full = arithmetic_runner(false, std::make_unique<SimpleScheduler>());
  SymbolRunner incremental = arithmetic_runner(true, std::make_unique<SimpleScheduler>());
  full.with_iteration_limit(iterations).run(rules);
  incremental.with_iteration_limit(iterations).run(rules);
  ASSERT_EQ(full.iterations.size(), incremental.iterations.size());
  std::size_t full_matches = 0;
  std::size_t incremental_matches = 0;
  bool any_incremental = false;
  for (std::size_t i = 0; i < full.iterations.size(); ++i) {
    EXPECT_EQ(full.iterations[i].egraph_nodes, incremental.iterations[i].egraph_nodes) << i;
    EXPECT_EQ(full.iterations[i].egraph_classes, incremental.iterations[i].egraph_classes) << i;
    // Not `applied`: re-applying an old match between rebuilds can add a node that the next
    // rebuild finds congruent to an old one, a merge that counts but changes nothing after it.
    for (const RuleIterationStats& rule : full.iterations[i].rules) full_matches += rule.matches;
    for (const RuleIterationStats& rule : incremental.iterations[i].rules) {
      incremental_matches += rule.matches;
      any_incremental = any_incremental || rule.incremental;
      EXPECT_EQ(rule.incremental, i > 0) << rule.rule;
    }
  }
  EXPECT_EQ(full.egraph.node_count(), incremental.egraph.node_count());
  EXPECT_EQ(full.egraph.class_count(), incremental.egraph.class_count());
  EXPECT_GT(full.egraph.node_count(), at_least_nodes);  // a workload worth the name
  EXPECT_TRUE(any_incremental);
  EXPECT_LT(incremental_matches * 4, full_matches * 3);
  // The same equalities hold.
  for (const char* text : {"(+ d (+ c (+ b a)))", "(+ (* a c) (+ (* b c) (+ (* a d) (* b d))))",
                           "0", "(* a (+ (* 2 b) c))"}) {
    EClassId in_full = full.egraph.add_term(term(text));
    EClassId in_incremental = incremental.egraph.add_term(term(text));
    for (std::size_t r = 0; r < full.roots.size(); ++r) {
      EXPECT_EQ(full.egraph.equivalent(in_full, full.roots[r]),
                incremental.egraph.equivalent(in_incremental, incremental.roots[r]))
          << text << " and root " << r;
    }
  }
}

TEST(IncrementalRunner, GrowsTheSameEGraphAsFullSearch) {
  expect_same_growth(arithmetic_rules(), 6, 1000);
}

// Without commutativity a missed match is rarely found again by another route.
TEST(IncrementalRunner, GrowsTheSameEGraphWithoutCommutativity) {
  std::vector<Rw> rules;
  for (Rw& rule : arithmetic_rules()) {
    if (rule.name().rfind("commute", 0) != 0) rules.push_back(std::move(rule));
  }
  rules.push_back(Rw::parse("unassoc-add", "(+ (+ ?a ?b) ?c)", "(+ ?a (+ ?b ?c))"));
  expect_same_growth(rules, 8, 100);
}

TEST(IncrementalRunner, BannedRulesFindTheirDroppedMatchesAgain) {
  auto backoff = [] {
    auto scheduler = std::make_unique<BackoffScheduler>();
    scheduler->with_initial_match_limit(20).with_ban_length(1);
    return scheduler;
  };
  SymbolRunner full = arithmetic_runner(false, backoff());
  SymbolRunner incremental = arithmetic_runner(true, backoff());
  full.with_iteration_limit(40);
  incremental.with_iteration_limit(40);
  full.run(arithmetic_rules());
  incremental.run(arithmetic_rules());
  ASSERT_EQ(full.stop_reason->kind, StopReason::Kind::Saturated);
  ASSERT_EQ(incremental.stop_reason->kind, StopReason::Kind::Saturated);
  EXPECT_EQ(full.egraph.node_count(), incremental.egraph.node_count());
  EXPECT_EQ(full.egraph.class_count(), incremental.egraph.class_count());
}

// Adds a node every iteration, so that a run goes on while other rules wait.
Rw grow() {
  return Rw::parse("grow", "(p ?x)", "(p (q ?x))");
}

TEST(IncrementalRunner, MatchesHeldBackByAConditionAreFoundAgain) {
  bool allowed = false;
  std::vector<Rw> rules;
  rules.push_back(grow());
  rules.push_back(Rw::parse("f-to-g", "(f ?x)", "(g ?x)")
                      .with_condition([&allowed](const Graph&, const Match&) { return allowed; }));
  rules.push_back(Rw::parse("h-to-k", "(h ?x)", "(k ?x)"));
  SymbolRunner runner;
  runner.with_incremental_search().with_scheduler(std::make_unique<SimpleScheduler>());
  EClassId fa = runner.add_term(term("(f a)"));
  EClassId hb = runner.add_term(term("(h b)"));
  runner.add_term(term("(p z)"));
  runner.with_iteration_limit(5).with_iteration_end_hook([&allowed](SymbolRunner& r) {
    allowed = r.iterations.size() >= 2;  // from the fourth iteration on
    return true;
  });
  runner.run(rules);
  EXPECT_TRUE(runner.egraph.equivalent(fa, runner.egraph.add_term(term("(g a)"))));
  EXPECT_TRUE(runner.egraph.equivalent(hb, runner.egraph.add_term(term("(k b)"))));
  // h-to-k applied once and was then searched incrementally, finding nothing more.
  ASSERT_GE(runner.iterations.size(), 4u);
  for (std::size_t i = 1; i < runner.iterations.size(); ++i) {
    for (const RuleIterationStats& rule : runner.iterations[i].rules)
      EXPECT_NE(rule.rule, "h-to-k") << "iteration " << i;
  }
}

TEST(IncrementalRunner, MatchesAFilterVetoedAreFoundAgain) {
  int vetoes_left = 2;
  SymbolRunner runner;
  runner.with_incremental_search().with_scheduler(std::make_unique<SimpleScheduler>());
  runner.with_match_filter([&vetoes_left](const Graph&, const Rw& rule, const Match&) {
    return rule.name() != "f-to-g" || vetoes_left-- <= 0;
  });
  EClassId fa = runner.add_term(term("(f a)"));
  runner.add_term(term("(p z)"));
  runner.with_iteration_limit(5).run({grow(), Rw::parse("f-to-g", "(f ?x)", "(g ?x)")});
  EXPECT_EQ(vetoes_left, -1);  // vetoed twice, then searched and applied once more
  EXPECT_TRUE(runner.egraph.equivalent(fa, runner.egraph.add_term(term("(g a)"))));
}

TEST(IncrementalRunner, MultiPatternRulesAndNodeFiltersSearchInFull) {
  SymbolRunner runner;
  runner.with_incremental_search().with_scheduler(std::make_unique<SimpleScheduler>());
  runner.add_term(term("(+ (f a) (f b))"));
  runner.egraph.set_node_filter([](EClassId, const ENode<Symbol>&) { return true; });
  std::vector<Rw> rules;
  rules.push_back(Rw::parse("commute-add", "(+ ?a ?b)", "(+ ?b ?a)"));
  rules.push_back(Rw::parse_multi("pair", {"(f ?x)", "(f ?y)"}, {"(g ?x ?y)", "(g ?y ?x)"}));
  runner.with_iteration_limit(3).run(rules);
  for (const Iteration& iteration : runner.iterations) {
    for (const RuleIterationStats& rule : iteration.rules) EXPECT_FALSE(rule.incremental);
  }
}

}  // namespace
}  // namespace saturate::egraph
