#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "egraph/runner.h"
#include "egraph/scheduler.h"
#include "egraph/symbol.h"

namespace saturate::egraph {
namespace {

using Rw = Rewrite<Symbol>;
using SymbolRunner = Runner<Symbol>;

std::vector<Rw> commutativity_and_associativity() {
  std::vector<Rw> rules;
  rules.push_back(Rw::parse("commute-add", "(+ ?a ?b)", "(+ ?b ?a)"));
  for (Rw& rule : Rw::parse_both_ways("assoc-add", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)"))
    rules.push_back(std::move(rule));
  return rules;
}

Term<Symbol> term(const char* text) {
  return Term<Symbol>::parse(text);
}

TEST(Runner, DefaultsAreDocumented) {
  SymbolRunner runner;
  EXPECT_EQ(runner.node_limit(), 10'000u);
  EXPECT_EQ(runner.iteration_limit(), 30u);
  EXPECT_DOUBLE_EQ(runner.time_limit().count(), 5.0);
}

TEST(Runner, CommutativityAndAssociativitySaturate) {
  SymbolRunner runner;
  runner.with_scheduler(std::make_unique<SimpleScheduler>());
  runner.add_term(term("(+ a (+ b c))"));
  runner.run(commutativity_and_associativity());
  ASSERT_TRUE(runner.stop_reason.has_value());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
  // a, b, c; the three sums of two; the sum of all three.
  EXPECT_EQ(runner.egraph.class_count(), 7u);
  // Leaves 3, each pair in both orders 6, each (pair + single) split in both orders 6.
  EXPECT_EQ(runner.egraph.node_count(), 15u);
  EXPECT_TRUE(
      runner.egraph.equivalent(runner.roots[0], runner.egraph.add_term(term("(+ (+ c b) a)"))));
  // The last iteration changed nothing.
  EXPECT_EQ(runner.iterations.back().applied, 0u);
}

TEST(Runner, NodeLimitStopsTheRun) {
  SymbolRunner runner;
  runner.with_node_limit(100).with_iteration_limit(100);
  runner.add_term(term("(+ a (+ b (+ c (+ d (+ e (+ f g))))))"));
  runner.run(commutativity_and_associativity());
  ASSERT_TRUE(runner.stop_reason.has_value());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::NodeLimit);
  EXPECT_EQ(runner.stop_reason->limit, 100u);
  EXPECT_GT(runner.egraph.node_count(), 100u);
  EXPECT_TRUE(runner.egraph.is_clean());  // a stopped iteration still rebuilds
}

TEST(Runner, IterationLimitStopsTheRun) {
  SymbolRunner runner;
  runner.with_iteration_limit(2);
  runner.add_term(term("(+ a (+ b (+ c (+ d e))))"));
  runner.run(commutativity_and_associativity());
  ASSERT_TRUE(runner.stop_reason.has_value());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::IterationLimit);
  EXPECT_EQ(runner.iterations.size(), 2u);
  EXPECT_EQ(runner.stop_reason->to_string(), "iteration limit (2 iterations)");
}

TEST(Runner, TimeLimitStopsTheRun) {
  SymbolRunner runner;
  runner.with_time_limit(std::chrono::seconds(0));
  runner.add_term(term("(+ a (+ b c))"));
  runner.run(commutativity_and_associativity());
  ASSERT_TRUE(runner.stop_reason.has_value());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::TimeLimit);
}

TEST(Runner, RecordsStatisticsPerIteration) {
  SymbolRunner runner;
  runner.with_scheduler(std::make_unique<SimpleScheduler>());
  runner.add_term(term("(+ a (+ b c))"));
  runner.run(commutativity_and_associativity());
  ASSERT_GE(runner.iterations.size(), 2u);
  const Iteration& first = runner.iterations[0];
  EXPECT_EQ(first.index, 0u);
  EXPECT_EQ(first.egraph_nodes, 5u);
  EXPECT_EQ(first.egraph_classes, 5u);
  ASSERT_FALSE(first.rules.empty());
  EXPECT_EQ(first.rules[0].rule, "commute-add");
  EXPECT_EQ(first.rules[0].matches, 2u);
  EXPECT_EQ(first.rules[0].applied, 2u);
  EXPECT_GE(first.search_seconds, 0.0);
  EXPECT_GE(first.total_seconds, first.search_seconds);
  // commute-add and assoc-add both search (+ ?0 ?1)-rooted patterns; the cache shares equal ones.
  EXPECT_LE(first.searches, 3u);
  EXPECT_FALSE(first.stop_reason.has_value());
  EXPECT_TRUE(runner.iterations.back().stop_reason.has_value());
  for (std::size_t i = 1; i < runner.iterations.size(); ++i) {
    EXPECT_GE(runner.iterations[i].egraph_nodes, runner.iterations[i - 1].egraph_nodes);
  }

  RunReport report = runner.report();
  EXPECT_EQ(report.iterations, runner.iterations.size());
  EXPECT_EQ(report.egraph_classes, 7u);
  std::size_t applied = 0;
  for (const Iteration& iteration : runner.iterations) applied += iteration.applied;
  EXPECT_EQ(report.applied, applied);

  nlohmann::json json = nlohmann::json::parse(report.to_json());
  EXPECT_EQ(json["stop_reason"]["kind"], "saturated");
  EXPECT_EQ(json["egraph_classes"], 7);
  EXPECT_EQ(json["iteration_stats"].size(), runner.iterations.size());
  EXPECT_EQ(json["iteration_stats"][0]["rules"][0]["rule"], "commute-add");
  EXPECT_TRUE(json["iteration_stats"][0].contains("rebuild_seconds"));
  EXPECT_FALSE(nlohmann::json::parse(report.to_json(false)).contains("iteration_stats"));
  EXPECT_NE(report.to_string().find("saturated"), std::string::npos);
}

TEST(Runner, HookCanStopTheRun) {
  SymbolRunner runner;
  int calls = 0;
  runner.with_hook([&calls](SymbolRunner& r) {
    ++calls;
    return r.iterations.size() < 1;  // allow one iteration
  });
  runner.add_term(term("(+ a (+ b (+ c d)))"));
  runner.run(commutativity_and_associativity());
  ASSERT_TRUE(runner.stop_reason.has_value());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Hook);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(runner.iterations.size(), 2u);
  EXPECT_EQ(runner.iterations[1].applied, 0u);
}

TEST(Runner, IterationEndHookSeesEachRebuiltIteration) {
  SymbolRunner runner;
  std::vector<bool> clean;
  runner.with_iteration_end_hook([&clean](SymbolRunner& r) {
    clean.push_back(r.egraph.is_clean());
    return true;
  });
  runner.add_term(term("(+ a b)"));
  runner.run(commutativity_and_associativity());
  EXPECT_EQ(clean.size(), runner.iterations.size());
  for (bool was_clean : clean) EXPECT_TRUE(was_clean);
}

TEST(Runner, MatchFilterVetoesMatches) {
  SymbolRunner runner;
  runner.with_match_filter([](const EGraph<Symbol>&, const Rw& rule, const Match&) {
    return rule.name() != "commute-add";
  });
  runner.add_term(term("(+ a b)"));
  runner.run(commutativity_and_associativity());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
  EXPECT_FALSE(runner.egraph.lookup_term(term("(+ b a)")).has_value());
  ASSERT_FALSE(runner.iterations[0].rules.empty());
  EXPECT_EQ(runner.iterations[0].rules[0].filtered, 1u);
  EXPECT_EQ(runner.iterations[0].rules[0].applied, 0u);
}

TEST(Runner, BackoffSchedulerBansExplosiveRulesButStillSaturates) {
  SymbolRunner runner;
  auto scheduler = std::make_unique<BackoffScheduler>();
  scheduler->with_initial_match_limit(2).with_ban_length(1);
  BackoffScheduler* backoff = scheduler.get();
  runner.with_scheduler(std::move(scheduler)).with_iteration_limit(100);
  runner.add_term(term("(+ a (+ b c))"));
  runner.run(commutativity_and_associativity());
  EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
  EXPECT_EQ(runner.egraph.class_count(), 7u);
  EXPECT_GT(backoff->times_banned(0), 0u);
  bool saw_ban = false;
  for (const Iteration& iteration : runner.iterations) {
    for (const RuleIterationStats& rule : iteration.rules) saw_ban = saw_ban || rule.banned;
  }
  EXPECT_TRUE(saw_ban);
}

TEST(BackoffScheduler, LimitsAndBansDouble) {
  // As in egg, a ban of length n given in iteration i skips iterations i+1 .. i+n-1.
  BackoffScheduler scheduler;
  scheduler.with_initial_match_limit(10).with_ban_length(2).do_not_ban("calm");
  scheduler.start({"wild", "calm"});
  EXPECT_EQ(scheduler.search_limit(0, 0), 11u);
  EXPECT_FALSE(scheduler.accept_matches(0, 0, 11));
  EXPECT_EQ(scheduler.search_limit(0, 1), 0u);
  EXPECT_EQ(scheduler.search_limit(0, 2), 21u);  // the limit doubled
  EXPECT_TRUE(scheduler.accept_matches(0, 2, 20));
  EXPECT_FALSE(scheduler.accept_matches(0, 2, 21));  // and so does the ban: 3, 4, 5 skipped
  EXPECT_EQ(scheduler.search_limit(0, 3), 0u);
  EXPECT_EQ(scheduler.search_limit(0, 5), 0u);
  EXPECT_EQ(scheduler.search_limit(0, 6), 41u);
  EXPECT_FALSE(scheduler.can_stop(3));  // a banned rule must get another chance first
  EXPECT_EQ(scheduler.search_limit(0, 4), 41u);
  EXPECT_TRUE(scheduler.can_stop(4));
  EXPECT_EQ(scheduler.times_banned(0), 2u);
  EXPECT_TRUE(scheduler.accept_matches(1, 0, 1'000'000));
  EXPECT_EQ(scheduler.times_banned(1), 0u);
}

TEST(Runner, MultiPatternRulesStopAfterTheirIterationLimit) {
  std::vector<Rw> rules;
  rules.push_back(Rw::parse_multi("pair", {"(f ?x ?a)", "(g ?x ?b)"}, {"(F ?a ?b)", "(G ?a ?b)"}));
  {
    SymbolRunner runner;
    runner.with_multi_pattern_iteration_limit(0);
    runner.add_term(term("(f x a)"));
    runner.add_term(term("(g x b)"));
    runner.run(rules);
    EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
    EXPECT_FALSE(runner.egraph.lookup_term(term("(F a b)")).has_value());
  }
  {
    SymbolRunner runner;
    runner.with_multi_pattern_iteration_limit(1);
    runner.add_term(term("(f x a)"));
    runner.add_term(term("(g x b)"));
    runner.run(rules);
    EXPECT_EQ(runner.stop_reason->kind, StopReason::Kind::Saturated);
    EXPECT_TRUE(runner.egraph.equivalent(runner.roots[0], runner.egraph.add_term(term("(F a b)"))));
    EXPECT_TRUE(runner.egraph.equivalent(runner.roots[1], runner.egraph.add_term(term("(G a b)"))));
  }
}

TEST(Runner, RuleNamesMustBeUnique) {
  std::vector<Rw> rules;
  rules.push_back(Rw::parse("same", "(f ?x)", "(g ?x)"));
  rules.push_back(Rw::parse("same", "(g ?x)", "(f ?x)"));
  SymbolRunner runner;
  EXPECT_THROW(runner.run(rules), Error);
}

}  // namespace
}  // namespace saturate::egraph
