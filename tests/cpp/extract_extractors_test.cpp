// The extractors on small hand-made e-graphs with known answers, and the ILP against brute force
// on random e-graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "extract/bottom_up_extractor.h"
#include "extract/cbc_solver.h"
#include "extract/exclusive_parents.h"
#include "extract/extractor.h"
#include "extract/greedy_dag_extractor.h"
#include "extract/ilp_extractor.h"
#include "extract/milp_solver.h"
#include "extract/problem_reduction.h"
#include "extract/reuse_improvement.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::extract;

namespace {

// One node: its class, its name (also its op and id), child classes, cost.
struct NodeSpec {
  std::string eclass;
  std::string name;
  std::vector<std::string> children;
  double cost;
};

// Builds a graph from node specs; classes are created in order of first mention.
ExtractionGraph make_graph(const std::vector<NodeSpec>& specs,
                           const std::vector<std::string>& roots) {
  ExtractionGraph graph;
  std::map<std::string, ClassIndex> classes;
  auto class_of = [&](const std::string& name) {
    auto [entry, inserted] = classes.try_emplace(name, 0);
    if (inserted) entry->second = graph.add_class(name);
    return entry->second;
  };
  for (const NodeSpec& spec : specs) class_of(spec.eclass);
  for (const NodeSpec& spec : specs) {
    std::vector<ClassIndex> children;
    for (const std::string& child : spec.children) children.push_back(class_of(child));
    graph.add_node(class_of(spec.eclass), spec.name, children, spec.cost, spec.name);
  }
  for (const std::string& root : roots) graph.roots.push_back(class_of(root));
  graph.validate("test");
  return graph;
}

NodeIndex node_named(const ExtractionGraph& graph, const std::string& name) {
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    if (graph.nodes[n].id == name) return n;
  }
  throw Error("no node " + name);
}

// A choice of the named nodes, one per class; the other classes have none.
std::vector<NodeIndex> choice_of(const ExtractionGraph& graph,
                                 const std::vector<std::string>& names) {
  std::vector<NodeIndex> choice(graph.class_count(), kNoNode);
  for (const std::string& name : names) {
    const NodeIndex n = node_named(graph, name);
    choice[graph.nodes[n].eclass] = n;
  }
  return choice;
}

bool chose(const ExtractionGraph& graph, const ExtractionResult& result, const std::string& name) {
  const NodeIndex n = node_named(graph, name);
  return result.chosen(graph.nodes[n].eclass) == n;
}

ExtractOptions ilp_options(CycleHandling cycles = CycleHandling::lazy) {
  ExtractOptions options;
  options.time_limit_seconds = 10;
  options.cycles = cycles;
  return options;
}

// P is cheapest as a leaf (12) when costed as a tree, but f(S, T) shares U between S and T, so as
// a DAG it costs 1 + 1 + 1 + 6 = 9. Greedy DAG cost sees that; bottom-up greedy does not.
ExtractionGraph shared_child_graph() {
  return make_graph({{"U", "u", {}, 6},
                     {"S", "s_leaf", {}, 10},
                     {"S", "s", {"U"}, 1},
                     {"T", "t_leaf", {}, 10},
                     {"T", "t", {"U"}, 1},
                     {"P", "p_leaf", {}, 12},
                     {"P", "f", {"S", "T"}, 1}},
                    {"P"});
}

// The root adds P and Q; each is a leaf (3) or a cheap op on a shared S (1 + 3). Only a global
// view sees that taking both ops pays for S once: 1 + 1 + 1 + 3 = 6 instead of 1 + 3 + 3 = 7.
ExtractionGraph sibling_sharing_graph() {
  return make_graph({{"S", "s", {}, 3},
                     {"P", "p_leaf", {}, 3},
                     {"P", "g", {"S"}, 1},
                     {"Q", "q_leaf", {}, 3},
                     {"Q", "h", {"S"}, 1},
                     {"R", "add", {"P", "Q"}, 1}},
                    {"R"});
}

// A is a leaf (10) or f(B) (1); B is g(A) (1) or a leaf (5). f and g form a cycle costing 2;
// the best acyclic extraction is f(b_leaf) = 6.
ExtractionGraph cyclic_graph() {
  return make_graph(
      {{"A", "a_leaf", {}, 10}, {"A", "f", {"B"}, 1}, {"B", "g", {"A"}, 1}, {"B", "b_leaf", {}, 5}},
      {"A"});
}

}  // namespace

TEST(Extractors, BottomUpMissesSharingBelowOneNode) {
  const ExtractionGraph graph = shared_child_graph();
  const ExtractionResult bottom_up = BottomUpExtractor().extract(graph);
  EXPECT_TRUE(bottom_up.found && bottom_up.acyclic);
  EXPECT_DOUBLE_EQ(bottom_up.dag_cost, 12);
  EXPECT_DOUBLE_EQ(bottom_up.tree_cost, 12);
  EXPECT_TRUE(chose(graph, bottom_up, "p_leaf"));
  EXPECT_FALSE(bottom_up.proven_optimal);

  const ExtractionResult greedy = GreedyDagExtractor().extract(graph);
  EXPECT_DOUBLE_EQ(greedy.dag_cost, 9);
  EXPECT_DOUBLE_EQ(greedy.tree_cost, 1 + (1 + 6) + (1 + 6));
  EXPECT_TRUE(chose(graph, greedy, "f"));

  const ExtractionResult ilp = IlpExtractor().extract(graph, ilp_options());
  EXPECT_DOUBLE_EQ(ilp.dag_cost, 9);
  EXPECT_TRUE(ilp.proven_optimal);
  EXPECT_TRUE(ilp.acyclic);
  EXPECT_DOUBLE_EQ(ilp.lower_bound, 9);
}

TEST(Extractors, OnlyTheIlpSeesSharingAcrossSiblings) {
  const ExtractionGraph graph = sibling_sharing_graph();
  EXPECT_DOUBLE_EQ(BottomUpExtractor().extract(graph).dag_cost, 7);
  EXPECT_DOUBLE_EQ(GreedyDagExtractor().extract(graph).dag_cost, 7);
  for (CycleHandling cycles : {CycleHandling::none, CycleHandling::lazy, CycleHandling::real_order,
                               CycleHandling::integer_order}) {
    const ExtractionResult ilp = IlpExtractor().extract(graph, ilp_options(cycles));
    EXPECT_DOUBLE_EQ(ilp.dag_cost, 6) << to_string(cycles);
    EXPECT_DOUBLE_EQ(ilp.tree_cost, 1 + 4 + 4) << to_string(cycles);
    EXPECT_TRUE(ilp.proven_optimal) << to_string(cycles);
    EXPECT_TRUE(chose(graph, ilp, "g") && chose(graph, ilp, "h")) << to_string(cycles);
  }
}

TEST(Extractors, IlpAvoidsCycles) {
  const ExtractionGraph graph = cyclic_graph();
  for (CycleHandling cycles :
       {CycleHandling::lazy, CycleHandling::real_order, CycleHandling::integer_order}) {
    for (bool reduce : {true, false}) {
      for (bool warm_start : {true, false}) {
        ExtractOptions options = ilp_options(cycles);
        options.reduce = reduce;
        options.warm_start = warm_start;
        const ExtractionResult ilp = IlpExtractor().extract(graph, options);
        SCOPED_TRACE(std::string(to_string(cycles)) + (reduce ? " reduced" : "") +
                     (warm_start ? " warm" : ""));
        EXPECT_TRUE(ilp.found && ilp.acyclic);
        EXPECT_DOUBLE_EQ(ilp.dag_cost, 6);
        EXPECT_TRUE(chose(graph, ilp, "f") && chose(graph, ilp, "b_leaf"));
        EXPECT_TRUE(ilp.proven_optimal);
      }
    }
  }
  // The greedy extractors never build the cycle.
  EXPECT_DOUBLE_EQ(BottomUpExtractor().extract(graph).dag_cost, 6);
  EXPECT_DOUBLE_EQ(GreedyDagExtractor().extract(graph).dag_cost, 6);
}

TEST(Extractors, IlpWithoutCycleConstraintsReportsTheCycle) {
  const ExtractionGraph graph = cyclic_graph();
  ExtractOptions options = ilp_options(CycleHandling::none);
  options.warm_start = false;
  const ExtractionResult cyclic = IlpExtractor().extract(graph, options);
  EXPECT_TRUE(cyclic.found);
  EXPECT_FALSE(cyclic.acyclic);
  EXPECT_DOUBLE_EQ(cyclic.dag_cost, 2);
  EXPECT_FALSE(cyclic.proven_optimal);
  EXPECT_NE(cyclic.status.find("cycle"), std::string::npos);

  // With the greedy warm start, the acyclic warm start is returned instead.
  options.warm_start = true;
  const ExtractionResult fallback = IlpExtractor().extract(graph, options);
  EXPECT_TRUE(fallback.acyclic);
  EXPECT_DOUBLE_EQ(fallback.dag_cost, 6);
}

TEST(Extractors, ZeroCostCyclesThroughSplitAndConcat) {
  // TENSAT's shape: an op's class also holds split_0(split(concat(op, other))), free except for
  // the concat. Only "relu(conv)" is a real computation of A.
  const ExtractionGraph graph = make_graph({{"X", "input", {}, 0},
                                            {"A", "conv", {"X"}, 4},
                                            {"A", "split_0", {"S"}, 0},
                                            {"S", "split", {"C"}, 0},
                                            {"C", "concat", {"A", "B"}, 0.01},
                                            {"C", "merged", {"X"}, 7},
                                            {"B", "conv_b", {"X"}, 4},
                                            {"B", "split_1", {"S"}, 0},
                                            {"R", "add", {"A", "B"}, 1}},
                                           {"R"});
  // Separately 1 + 4 + 4 = 9; merged 1 + 7 + split etc. = 8.
  for (CycleHandling cycles :
       {CycleHandling::lazy, CycleHandling::real_order, CycleHandling::integer_order}) {
    for (bool reduce : {true, false}) {
      ExtractOptions options = ilp_options(cycles);
      options.reduce = reduce;
      const ExtractionResult ilp = IlpExtractor().extract(graph, options);
      SCOPED_TRACE(std::string(to_string(cycles)) + (reduce ? " reduced" : ""));
      EXPECT_TRUE(ilp.acyclic);
      EXPECT_DOUBLE_EQ(ilp.dag_cost, 8);
      EXPECT_TRUE(chose(graph, ilp, "merged"));
      EXPECT_TRUE(ilp.proven_optimal);
    }
  }
}

TEST(Extractors, FilteredNodesAreNeverChosen) {
  ExtractionGraph graph = sibling_sharing_graph();
  graph.filtered[node_named(graph, "h")] = true;
  graph.filtered[node_named(graph, "p_leaf")] = true;
  for (const std::string& name : extractor_names()) {
    const ExtractionResult result = make_extractor(name)->extract(graph, ilp_options());
    SCOPED_TRACE(name);
    EXPECT_TRUE(result.found && result.acyclic);
    EXPECT_TRUE(chose(graph, result, "g"));
    EXPECT_TRUE(chose(graph, result, "q_leaf"));
    EXPECT_DOUBLE_EQ(result.dag_cost, 1 + 1 + 3 + 3);
  }
}

TEST(Extractors, NoExtractionWhenEverythingIsFilteredOrCyclic) {
  ExtractionGraph graph = cyclic_graph();
  graph.filtered[node_named(graph, "a_leaf")] = true;
  graph.filtered[node_named(graph, "b_leaf")] = true;
  for (const std::string& name : extractor_names()) {
    const ExtractionResult result = make_extractor(name)->extract(graph, ilp_options());
    SCOPED_TRACE(name);
    EXPECT_FALSE(result.found && result.acyclic);
    EXPECT_FALSE(result.proven_optimal);
  }
  const ExtractionResult ilp = IlpExtractor().extract(graph, ilp_options());
  EXPECT_NE(ilp.status.find("infeasible"), std::string::npos) << ilp.status;
}

TEST(Extractors, TheReductionAloneCanDecide) {
  // Weight-only subgraphs cost nothing (folded at compile time): no variable is needed.
  const ExtractionGraph graph =
      make_graph({{"W", "weight", {}, 0}, {"R", "concat", {"W", "W"}, 0}}, {"R"});
  const ExtractionResult ilp = IlpExtractor().extract(graph, ilp_options());
  EXPECT_TRUE(ilp.found && ilp.acyclic && ilp.proven_optimal);
  EXPECT_DOUBLE_EQ(ilp.dag_cost, 0);
  EXPECT_NE(ilp.status.find("reduction"), std::string::npos) << ilp.status;
}

TEST(Extractors, ZeroTimeLimitReturnsTheWarmStart) {
  const ExtractionGraph graph = sibling_sharing_graph();
  ExtractOptions options;
  options.time_limit_seconds = 0;
  const ExtractionResult ilp = IlpExtractor().extract(graph, options);
  EXPECT_TRUE(ilp.found && ilp.acyclic);
  EXPECT_DOUBLE_EQ(ilp.dag_cost, 7);
  EXPECT_FALSE(ilp.proven_optimal);
}

TEST(Extractors, FactoryAndNames) {
  for (const std::string& name : extractor_names()) EXPECT_EQ(make_extractor(name)->name(), name);
  EXPECT_THROW(make_extractor("simulated-annealing"), Error);
  EXPECT_EQ(parse_cycle_handling("integer"), CycleHandling::integer_order);
  EXPECT_EQ(parse_cycle_handling(to_string(CycleHandling::real_order)), CycleHandling::real_order);
  EXPECT_THROW(parse_cycle_handling("sometimes"), Error);
}

namespace {

// The cheapest acyclic extraction by enumerating every choice; infinity when there is none.
double brute_force_optimum(const ExtractionGraph& graph) {
  std::vector<std::vector<NodeIndex>> options(graph.class_count());
  for (ClassIndex c = 0; c < graph.class_count(); ++c) {
    for (NodeIndex n : graph.class_nodes[c]) {
      if (!graph.is_filtered(n)) options[c].push_back(n);
    }
    if (options[c].empty()) options[c].push_back(kNoNode);
  }
  std::vector<std::size_t> digit(graph.class_count(), 0);
  double best = ExtractionResult::kInfinity;
  while (true) {
    std::vector<NodeIndex> choice(graph.class_count());
    for (ClassIndex c = 0; c < graph.class_count(); ++c) choice[c] = options[c][digit[c]];
    const ExtractionResult result = evaluate_choice(graph, choice);
    if (result.found && result.acyclic) best = std::min(best, result.dag_cost);
    ClassIndex c = 0;
    for (; c < graph.class_count(); ++c) {
      if (++digit[c] < options[c].size()) break;
      digit[c] = 0;
    }
    if (c == graph.class_count()) return best;
  }
}

ExtractionGraph random_graph(std::mt19937& random) {
  auto uniform = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  ExtractionGraph graph;
  const int classes = uniform(2, 8);
  for (int c = 0; c < classes; ++c) graph.add_class("c" + std::to_string(c));
  for (int c = 0; c < classes; ++c) {
    const int nodes = uniform(1, 3);
    for (int k = 0; k < nodes; ++k) {
      std::vector<ClassIndex> children;
      const int arity = uniform(0, 4) / 2;  // mostly 0 to 2 children
      for (int i = 0; i < arity; ++i)
        children.push_back(static_cast<ClassIndex>(uniform(0, classes - 1)));
      const NodeIndex n = graph.add_node(static_cast<ClassIndex>(c), "op", children, uniform(0, 4));
      graph.filtered[n] = uniform(0, 9) == 0;
    }
  }
  graph.roots = {0};
  return graph;
}

}  // namespace

// Every ILP variant must find exactly the brute-force optimum (or report that there is none),
// prove it, and never return a cycle; the greedy extractors must never do better than it.
TEST(Extractors, IlpMatchesBruteForceOnRandomGraphs) {
  std::mt19937 random(20240601);
  struct Variant {
    CycleHandling cycles;
    bool reduce;
    bool warm_start;
    bool settle_by_lp = true;
  };
  const std::vector<Variant> variants = {
      {CycleHandling::lazy, true, true},       {CycleHandling::lazy, true, true, false},
      {CycleHandling::lazy, false, true},      {CycleHandling::lazy, true, false},
      {CycleHandling::real_order, true, true}, {CycleHandling::integer_order, false, false, false}};
  int feasible = 0, reached_milp = 0, with_exclusive_rows = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const ExtractionGraph graph = random_graph(random);
    const double optimum = brute_force_optimum(graph);
    SCOPED_TRACE("trial " + std::to_string(trial));
    feasible += std::isfinite(optimum);
    for (const char* name : {"bottom-up", "greedy-dag"}) {
      const ExtractionResult greedy = make_extractor(name)->extract(graph);
      EXPECT_EQ(greedy.found && greedy.acyclic, std::isfinite(optimum)) << name;
      if (greedy.found && greedy.acyclic) {
        EXPECT_GE(greedy.dag_cost, optimum - 1e-9) << name;
      }
    }
    for (const Variant& variant : variants) {
      ExtractOptions options = ilp_options(variant.cycles);
      options.reduce = variant.reduce;
      options.warm_start = variant.warm_start;
      options.settle_by_lp = variant.settle_by_lp;
      const ExtractionResult ilp = IlpExtractor().extract(graph, options);
      SCOPED_TRACE(std::string(to_string(variant.cycles)) + (variant.reduce ? " reduced" : "") +
                   (variant.warm_start ? " warm" : "") + (variant.settle_by_lp ? " lp" : ""));
      if (!std::isfinite(optimum)) {
        EXPECT_FALSE(ilp.found && ilp.acyclic);
        continue;
      }
      ASSERT_TRUE(ilp.found && ilp.acyclic) << ilp.status;
      EXPECT_NEAR(ilp.dag_cost, optimum, 1e-9);
      EXPECT_TRUE(ilp.proven_optimal) << ilp.status;
      EXPECT_LE(ilp.lower_bound, ilp.dag_cost + 1e-9);
      reached_milp += ilp.solver.rfind("cbc", 0) == 0;
      for (const auto& [name, value] : ilp.statistics) {
        with_exclusive_rows += name == "exclusive parent rows" && value > 0;
      }
    }
  }
  EXPECT_GT(feasible, 100);     // the generator must produce enough feasible cases to mean anything
  EXPECT_GT(reached_milp, 50);  // and enough that the LP relaxation leaves to the MILP solver
  EXPECT_GT(with_exclusive_rows, 50);  // and enough with exclusive-parent rows to check them
}

// The same check through HiGHS, on fewer graphs (each extraction starts the Python helper).
TEST(Extractors, HighsIlpMatchesBruteForceOnRandomGraphs) {
  try {
    make_milp_solver("highs");
  } catch (const Error& error) {
    GTEST_SKIP() << "HiGHS is not available: " << error.what();
  }
  std::mt19937 random(20261130);
  int feasible = 0, reached_highs = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const ExtractionGraph graph = random_graph(random);
    const double optimum = brute_force_optimum(graph);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ExtractOptions options = ilp_options();
    options.solver = "highs";
    options.warm_start = trial % 2 == 0;
    // Graphs this small are mostly settled by the reduction and the LP: not here, half the time.
    options.reduce = trial % 4 < 2;
    options.settle_by_lp = false;
    const ExtractionResult ilp = IlpExtractor().extract(graph, options);
    if (!std::isfinite(optimum)) {
      EXPECT_FALSE(ilp.found && ilp.acyclic);
      continue;
    }
    ++feasible;
    ASSERT_TRUE(ilp.found && ilp.acyclic) << ilp.status;
    EXPECT_NEAR(ilp.dag_cost, optimum, 1e-9);
    EXPECT_TRUE(ilp.proven_optimal) << ilp.status;
    // Graphs the reduction decides never reach HiGHS.
    if (ilp.solver.rfind("highs", 0) == 0) {
      ++reached_highs;
    } else {
      EXPECT_TRUE(ilp.solver.empty()) << ilp.solver;
    }
  }
  EXPECT_GT(feasible, 10);
  EXPECT_GT(reached_highs, 5);  // HiGHS itself must be tested
}

// Class C reaches the expensive E through either of two candidates (via D1 or D2), or takes a
// leaf costing 8. Rows per node let the LP take each route half and pay E half (bound 5); the
// node-implication rows make any mix of the two routes pay E whole, so the LP bound is the
// integer optimum, 8.
TEST(Extractors, LpPaysInFullForAClassEveryRouteNeeds) {
  const ExtractionGraph graph = make_graph({{"C", "via1", {"D1"}, 0},
                                            {"C", "via2", {"D2"}, 0},
                                            {"C", "leaf", {}, 8},
                                            {"D1", "d1", {"E"}, 0},
                                            {"D2", "d2", {"E"}, 0},
                                            {"E", "e", {}, 10},
                                            {"R", "root", {"C"}, 0}},
                                           {"R"});
  ReductionOptions reduction;
  const ReducedProblem problem = reduce_problem(graph, reduction);
  ASSERT_TRUE(problem.has_implications);
  LpRelaxation relaxation(build_extraction_milp(graph, problem, CycleHandling::none));
  ASSERT_TRUE(relaxation.solve());
  EXPECT_NEAR(relaxation.objective(), 8, 1e-9);
  EXPECT_DOUBLE_EQ(IlpExtractor().extract(graph, ilp_options()).dag_cost, 8);
}

// Root R takes route A (X, then the expensive D) or route B (Y, which reaches D too or takes a
// leaf costing 20). Both routes cost 12 whole; the LP takes each half and pays D half (7), since
// each route alone asks only D >= 1/2. x1 and y1 sit under different candidates of R, so no
// minimal extraction uses both: the exclusive-parent row x1 + y1 <= a_D makes the LP pay D
// whole, and its bound is the optimum.
TEST(Extractors, ExclusiveParentRowsMakeAlternativeRoutesPayTheirSharedClassWhole) {
  const ExtractionGraph graph = make_graph({{"R", "rA", {"X"}, 1},
                                            {"R", "rB", {"Y"}, 1},
                                            {"X", "x1", {"D"}, 1},
                                            {"Y", "y1", {"D"}, 1},
                                            {"Y", "y2", {}, 20},
                                            {"D", "d", {}, 10}},
                                           {"R"});
  const ReducedProblem problem = reduce_problem(graph, ReductionOptions{});
  const std::vector<ExclusiveParents> rows = exclusive_parent_rows(graph, problem);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(graph.class_nodes[rows[0].eclass], std::vector<NodeIndex>{node_named(graph, "d")});
  std::vector<NodeIndex> users = {node_named(graph, "x1"), node_named(graph, "y1")};
  std::sort(users.begin(), users.end());
  EXPECT_EQ(rows[0].users, users);

  LpRelaxation relaxation(build_extraction_milp(graph, problem, CycleHandling::none));
  ASSERT_TRUE(relaxation.solve());
  EXPECT_NEAR(relaxation.objective(), 12, 1e-9);
  // Without the row (the model's last) the LP bound is 7.
  MilpProblem weaker = build_extraction_milp(graph, problem, CycleHandling::none);
  ASSERT_EQ(weaker.rows.back().terms.size(), 3u);  // x1 + y1 - x_d
  weaker.rows.pop_back();
  LpRelaxation weak(weaker);
  ASSERT_TRUE(weak.solve());
  EXPECT_NEAR(weak.objective(), 7, 1e-9);

  const ExtractionResult ilp = IlpExtractor().extract(graph, ilp_options());
  EXPECT_DOUBLE_EQ(ilp.dag_cost, 12);
  EXPECT_TRUE(ilp.proven_optimal);
  EXPECT_EQ(ilp.solver, "clp");  // settled by the LP relaxation
}

// Parents under one route are not exclusive: X reaches D directly and through Z, both of which
// one extraction may use together. No row may claim otherwise.
TEST(Extractors, ExclusiveParentRowsLeaveParentsOfOneRouteAlone) {
  const ExtractionGraph graph = make_graph({{"R", "r", {"X"}, 1},
                                            {"X", "x1", {"D", "Z"}, 1},
                                            {"X", "x2", {}, 30},
                                            {"Z", "z1", {"D"}, 1},
                                            {"Z", "z2", {}, 5},
                                            {"D", "d", {}, 10}},
                                           {"R"});
  const ReducedProblem problem = reduce_problem(graph, ReductionOptions{});
  EXPECT_TRUE(exclusive_parent_rows(graph, problem).empty());
  EXPECT_DOUBLE_EQ(IlpExtractor().extract(graph, ilp_options()).dag_cost, 13);  // r x1 z1 d
}

namespace {

// The shape of extraction-gym's herbie e-graphs (issue 15: 2,152 classes, 34,163 nodes, on which
// --time-limit 30 ran past three minutes): many nodes per class, children mostly a few classes
// further down, one in five back up (cycles), leaves only at the bottom.
ExtractionGraph herbie_like_graph(std::size_t classes, std::size_t nodes_per_class, unsigned seed) {
  std::mt19937 random(seed);
  ExtractionGraph graph;
  for (std::size_t c = 0; c < classes; ++c) graph.add_class("c" + std::to_string(c));
  auto pick = [&](std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(random);
  };
  const double costs[] = {1, 1, 2, 3};
  for (std::size_t c = 0; c < classes; ++c) {
    for (std::size_t k = 0; k < nodes_per_class; ++k) {
      std::vector<ClassIndex> children;
      if (!(c + 40 >= classes && k == 0)) {
        for (std::size_t a = 0, arity = pick(1, 3); a < arity; ++a) {
          const std::size_t child = pick(0, 4) > 0 ? std::min(classes - 1, c + pick(1, 12))
                                                   : c - std::min(c, pick(1, 60));
          children.push_back(static_cast<ClassIndex>(child));
        }
      }
      const std::string id = "n" + std::to_string(c) + "_" + std::to_string(k);
      graph.add_node(static_cast<ClassIndex>(c), "op", children, costs[pick(0, 3)], id);
    }
  }
  graph.roots.push_back(0);
  graph.validate("herbie-like");
  return graph;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The ILP's per-phase seconds, for a failure message.
std::string phase_seconds(const ExtractionResult& result) {
  std::string text;
  for (const auto& [name, value] : result.statistics) {
    if (name.find("seconds") != std::string::npos) {
      text += name + " " + std::to_string(value) + "; ";
    }
  }
  return text + "status: " + result.status;
}

}  // namespace

// Every step of the ILP (warm start, reduction, cuts, LP tightening, solver rounds) sees one
// deadline: it ends within the limit plus max(10 %, 2 s), with the best acyclic extraction so far.
TEST(Extractors, IlpTimeLimitHoldsOnAHerbieLikeEGraph) {
  const ExtractionGraph graph = herbie_like_graph(2152, 16, 4);
  ExtractOptions options;
  options.time_limit_seconds = 3;
  options.cycles = CycleHandling::lazy;
  const auto start = std::chrono::steady_clock::now();
  const ExtractionResult ilp = IlpExtractor().extract(graph, options);
  EXPECT_LE(seconds_since(start), 3 + 2.0) << phase_seconds(ilp);
  EXPECT_TRUE(ilp.found && ilp.acyclic) << ilp.status;
}

// The outer deadline (the whole command's) wins over a longer time limit.
TEST(Extractors, IlpStopsAtTheOuterDeadline) {
  const ExtractionGraph graph = herbie_like_graph(2152, 16, 5);
  ExtractOptions options;
  options.time_limit_seconds = 600;
  options.cycles = CycleHandling::lazy;
  options.deadline = Deadline::after(1);
  const auto start = std::chrono::steady_clock::now();
  const ExtractionResult ilp = IlpExtractor().extract(graph, options);
  EXPECT_LE(seconds_since(start), 1 + 2.0) << phase_seconds(ilp);
  EXPECT_TRUE(ilp.found && ilp.acyclic) << ilp.status;
  EXPECT_FALSE(ilp.proven_optimal);
}

// HiGHS runs in a helper process that checks its clock only between steps: past its limit and
// the grace period it is killed, so the limit holds with HiGHS too.
TEST(Extractors, IlpTimeLimitHoldsWithHighs) {
  try {
    make_milp_solver("highs");
  } catch (const Error& error) {
    GTEST_SKIP() << "HiGHS is not available: " << error.what();
  }
  const ExtractionGraph graph = herbie_like_graph(2152, 16, 6);
  ExtractOptions options;
  options.time_limit_seconds = 3;
  options.cycles = CycleHandling::lazy;
  options.solver = "highs";
  const auto start = std::chrono::steady_clock::now();
  const ExtractionResult ilp = IlpExtractor().extract(graph, options);
  EXPECT_LE(seconds_since(start), 3 + 2.0) << phase_seconds(ilp);
  EXPECT_TRUE(ilp.found && ilp.acyclic) << ilp.status;
}

// On a deep chain every class's set holds every class below it (n^2 / 2 entries: 4.5 x 10^8 at
// 30,000); the greedy DAG extractor gives up to bottom-up instead of taking gigabytes.
TEST(Extractors, GreedyDagFallsBackToBottomUpOnDeepChains) {
  ExtractionGraph graph;
  const std::size_t depth = 30'000;
  for (std::size_t c = 0; c < depth; ++c) graph.add_class("c" + std::to_string(c));
  for (std::size_t c = 0; c < depth; ++c) {
    std::vector<ClassIndex> children;
    if (c + 1 < depth) children.push_back(static_cast<ClassIndex>(c + 1));
    graph.add_node(static_cast<ClassIndex>(c), "relu", children, 1, "n" + std::to_string(c));
  }
  graph.roots.push_back(0);
  const ExtractionResult greedy = GreedyDagExtractor().extract(graph, {});
  EXPECT_TRUE(greedy.found && greedy.acyclic);
  EXPECT_DOUBLE_EQ(greedy.dag_cost, static_cast<double>(depth));
  EXPECT_NE(greedy.status.find("bottom-up"), std::string::npos) << greedy.status;
}

// A pre-norm residual block with a two-output kernel T = fused(X, K) that gives both the norm
// N (output 0) and the sum S (output 1), each projection free. Greedy prices S alone, where the
// add (2) beats the kernel (5), and N alone, where the kernel (5) beats add + norm (6): both
// the add and the kernel, 9. Reuse sees that T, extracted for N, also gives S: 7, the optimum.
TEST(Extractors, GreedyDagReusesTheSecondOutputOfAKernelItChoseForAnotherClass) {
  const ExtractionGraph graph = make_graph({{"X", "x", {}, 0},
                                            {"K", "k", {}, 0},
                                            {"T", "fused", {"X", "K"}, 5},
                                            {"S", "add", {"X", "K"}, 2},
                                            {"S", "sum_of_fused", {"T"}, 0},
                                            {"N", "norm", {"S"}, 4},
                                            {"N", "norm_of_fused", {"T"}, 0},
                                            {"R", "residual", {"S", "N"}, 2}},
                                           {"R"});
  const ExtractionResult greedy = GreedyDagExtractor().extract(graph);
  ASSERT_TRUE(greedy.found && greedy.acyclic);
  EXPECT_DOUBLE_EQ(greedy.dag_cost, 7);
  EXPECT_TRUE(chose(graph, greedy, "sum_of_fused") && chose(graph, greedy, "norm_of_fused"));
  const auto switches = std::find(greedy.statistics.begin(), greedy.statistics.end(),
                                  std::pair<std::string, double>{"reuse switches", 1});
  EXPECT_NE(switches, greedy.statistics.end());
  EXPECT_DOUBLE_EQ(IlpExtractor().extract(graph, ilp_options()).dag_cost, 7);

  // The reuse step alone, from the greedy choice without it.
  std::vector<NodeIndex> choice =
      choice_of(graph, {"x", "k", "fused", "add", "norm_of_fused", "residual"});
  EXPECT_DOUBLE_EQ(dag_cost(graph, choice), 9);
  EXPECT_EQ(improve_by_reuse(graph, choice, Deadline::never()), 1u);
  EXPECT_DOUBLE_EQ(dag_cost(graph, choice), 7);
}

// Reuse never closes a cycle: B is extracted as g(A), so A must not switch to f(B) although f
// is cheaper than A's leaf.
TEST(Extractors, ReuseDoesNotCloseACycle) {
  const ExtractionGraph graph = make_graph({{"A", "a_leaf", {}, 10},
                                            {"A", "f", {"B"}, 1},
                                            {"B", "g", {"A"}, 1},
                                            {"R", "root", {"A", "B"}, 1}},
                                           {"R"});
  std::vector<NodeIndex> choice = choice_of(graph, {"a_leaf", "g", "root"});
  EXPECT_EQ(improve_by_reuse(graph, choice, Deadline::never()), 0u);
  EXPECT_TRUE(chose(graph, evaluate_choice(graph, choice), "a_leaf"));
}

// From a random complete, acyclic choice on random e-graphs (with cycles), reuse only ever
// lowers the DAG cost, keeps the choice complete and acyclic, and never passes the brute-force
// optimum.
TEST(Extractors, ReuseNeverWorsensOrBreaksAChoiceOnRandomGraphs) {
  std::mt19937 random(20261206);
  int tried = 0, improved = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const ExtractionGraph graph = random_graph(random);
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<NodeIndex> random_choice(graph.class_count(), kNoNode);
    for (ClassIndex c = 0; c < graph.class_count(); ++c) {
      const auto& nodes = graph.class_nodes[c];
      const NodeIndex n =
          nodes[std::uniform_int_distribution<std::size_t>(0, nodes.size() - 1)(random)];
      if (!graph.is_filtered(n)) random_choice[c] = n;
    }
    const ExtractionResult start = evaluate_choice(graph, random_choice);
    if (!start.found || !start.acyclic) continue;
    ++tried;
    std::vector<NodeIndex> choice = start.choice;
    const std::size_t switches = improve_by_reuse(graph, choice, Deadline::never());
    const ExtractionResult after = evaluate_choice(graph, choice);
    ASSERT_TRUE(after.found && after.acyclic);
    EXPECT_EQ(switches > 0, after.dag_cost < start.dag_cost);
    EXPECT_LE(after.dag_cost, start.dag_cost);
    EXPECT_GE(after.dag_cost, brute_force_optimum(graph) - 1e-9);
    improved += switches > 0;
  }
  EXPECT_GT(tried, 100);    // enough valid starting choices to mean anything
  EXPECT_GT(improved, 20);  // and enough that reuse improves
}
