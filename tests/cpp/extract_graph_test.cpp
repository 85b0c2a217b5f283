// ExtractionGraph, choice evaluation, cycle utilities and problem reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "extract/cycle_check.h"
#include "extract/extraction_graph.h"
#include "extract/extraction_result.h"
#include "extract/problem_reduction.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::extract;

namespace {

void expect_error(const ExtractionGraph& graph, const std::string& fragment) {
  try {
    graph.validate("test-graph");
    FAIL() << "expected an error mentioning '" << fragment << "'";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("test-graph"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

// x (cost 1), y = f(x, x) (cost 2), root = g(y, x) (cost 3).
struct SmallGraph {
  ExtractionGraph graph;
  ClassIndex x, y, root;
  NodeIndex leaf, f, g;
  SmallGraph() {
    x = graph.add_class("x");
    y = graph.add_class("y");
    root = graph.add_class("root");
    leaf = graph.add_node(x, "x", {}, 1);
    f = graph.add_node(y, "f", {x, x}, 2);
    g = graph.add_node(root, "g", {y, x}, 3);
    graph.roots = {root};
  }
};

}  // namespace

TEST(ExtractionGraph, BuildsClassesAndNodes) {
  SmallGraph small;
  const auto& graph = small.graph;
  EXPECT_EQ(graph.class_count(), 3u);
  EXPECT_EQ(graph.node_count(), 3u);
  EXPECT_EQ(graph.class_nodes[small.y], std::vector<NodeIndex>{small.f});
  EXPECT_EQ(graph.nodes[small.f].id, "n1");  // default ids
  EXPECT_FALSE(graph.is_filtered(small.f));
  EXPECT_NO_THROW(graph.validate("small"));
}

TEST(ExtractionGraph, ValidateNamesTheProblem) {
  ExtractionGraph empty;
  expect_error(empty, "no nodes");

  SmallGraph no_roots;
  no_roots.graph.roots.clear();
  expect_error(no_roots.graph, "no root");

  SmallGraph empty_root;
  empty_root.graph.roots.push_back(empty_root.graph.add_class("nothing"));
  expect_error(empty_root.graph, "root class 'nothing' has no nodes");

  SmallGraph negative;
  negative.graph.nodes[negative.f].cost = -1;
  expect_error(negative.graph, "non-negative");

  SmallGraph not_a_number;
  not_a_number.graph.nodes[not_a_number.f].cost = std::nan("");
  expect_error(not_a_number.graph, "finite");

  SmallGraph bad_child;
  bad_child.graph.nodes[bad_child.g].children.push_back(17);
  expect_error(bad_child.graph, "child class index out of range");

  ExtractionGraph graph;
  EXPECT_THROW(graph.add_node(3, "x", {}, 1), Error);
}

TEST(ExtractionResult, DagCostCountsSharedNodesOnceTreeCostPerUse) {
  SmallGraph small;
  std::vector<NodeIndex> choice = {small.leaf, small.f, small.g};
  ExtractionResult result = evaluate_choice(small.graph, choice);
  EXPECT_TRUE(result.found);
  EXPECT_TRUE(result.acyclic);
  EXPECT_DOUBLE_EQ(result.dag_cost, 6);                 // 1 + 2 + 3
  EXPECT_DOUBLE_EQ(result.tree_cost, 3 + (2 + 2) + 1);  // g + f(x, x) + x
}

TEST(ExtractionResult, DropsUnreachableChoicesAndReportsMissingOnes) {
  SmallGraph small;
  const ClassIndex extra = small.graph.add_class("extra");
  const NodeIndex unused = small.graph.add_node(extra, "unused", {}, 100);
  ExtractionResult result = evaluate_choice(small.graph, {small.leaf, small.f, small.g, unused});
  EXPECT_EQ(result.chosen(extra), kNoNode);
  EXPECT_DOUBLE_EQ(result.dag_cost, 6);

  ExtractionResult missing = evaluate_choice(small.graph, {kNoNode, small.f, small.g});
  EXPECT_FALSE(missing.found);
  EXPECT_TRUE(std::isinf(missing.dag_cost));
  EXPECT_TRUE(std::isinf(missing.tree_cost));

  EXPECT_THROW(evaluate_choice(small.graph, {small.f, small.f, small.g}), Error);
}

TEST(ExtractionResult, CyclicChoiceHasInfiniteTreeCost) {
  ExtractionGraph graph;
  const ClassIndex a = graph.add_class("a"), b = graph.add_class("b");
  const NodeIndex to_b = graph.add_node(a, "f", {b}, 1);
  const NodeIndex to_a = graph.add_node(b, "g", {a}, 1);
  graph.roots = {a};
  ExtractionResult result = evaluate_choice(graph, {to_b, to_a});
  EXPECT_TRUE(result.found);
  EXPECT_FALSE(result.acyclic);
  EXPECT_DOUBLE_EQ(result.dag_cost, 2);
  EXPECT_TRUE(std::isinf(result.tree_cost));
  const auto cycles = find_choice_cycles(graph, result.choice);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (ClassCycle{a, b}));
}

TEST(CycleCheck, StronglyConnectedComponents) {
  // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3, 5 alone.
  const std::vector<std::vector<ClassIndex>> successors = {{1}, {2}, {0, 3}, {4}, {3}, {}};
  const auto component = strongly_connected_components(successors);
  EXPECT_EQ(component[0], component[1]);
  EXPECT_EQ(component[1], component[2]);
  EXPECT_EQ(component[3], component[4]);
  EXPECT_NE(component[0], component[3]);
  EXPECT_NE(component[5], component[0]);
  // Children first: {3, 4} is numbered before {0, 1, 2}.
  EXPECT_LT(component[3], component[0]);
  const auto sizes = component_sizes(component);
  EXPECT_EQ(sizes[component[0]], 3u);
  EXPECT_EQ(sizes[component[5]], 1u);
}

TEST(CycleCheck, FindsLightCyclesAndShortCycles) {
  // Two cycles through 0: 0 -> 1 -> 0 (weight 0.9) and 0 -> 2 -> 3 -> 0 (weight 0.3).
  std::vector<std::vector<WeightedEdge>> edges(4);
  edges[0] = {{1, 0.4}, {2, 0.1}};
  edges[1] = {{0, 0.5}};
  edges[2] = {{3, 0.1}};
  edges[3] = {{0, 0.1}};
  std::vector<double> threshold = {0.5, 0, 0, 0};
  auto cycles = find_light_cycles(edges, threshold, 10);
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (ClassCycle{0, 2, 3}));
  threshold[0] = 0.2;  // nothing lighter than 0.2
  EXPECT_TRUE(find_light_cycles(edges, threshold, 10).empty());

  const std::vector<std::vector<ClassIndex>> successors = {{1, 2}, {0}, {3}, {0}};
  EXPECT_EQ(enumerate_short_cycles(successors, 2, 100).size(), 1u);
  EXPECT_EQ(enumerate_short_cycles(successors, 3, 100).size(), 2u);
  EXPECT_EQ(enumerate_short_cycles(successors, 3, 1).size(), 1u);
}

TEST(ProblemReduction, DropsWhatCannotBeChosen) {
  ExtractionGraph graph;
  const ClassIndex x = graph.add_class("x"), y = graph.add_class("y"), a = graph.add_class("a"),
                   b = graph.add_class("b"), root = graph.add_class("root");
  const NodeIndex x_leaf = graph.add_node(x, "x", {}, 1);
  const NodeIndex y_leaf = graph.add_node(y, "y", {}, 2);
  const NodeIndex cheap = graph.add_node(a, "cheap", {x}, 1);
  const NodeIndex dominated = graph.add_node(a, "dominated", {x, y}, 1);  // superset, same cost
  const NodeIndex self_loop = graph.add_node(a, "loop", {a}, 0);
  const NodeIndex via_b = graph.add_node(a, "via_b", {b}, 0);
  graph.add_node(b, "back", {a}, 0);  // b's only node needs a: via_b needs its own class
  const NodeIndex top = graph.add_node(root, "top", {a}, 1);
  graph.roots = {root};

  const ReducedProblem problem = reduce_problem(graph);
  EXPECT_FALSE(problem.infeasible);
  EXPECT_EQ(problem.candidates[a], std::vector<NodeIndex>{cheap});
  EXPECT_EQ(problem.replacement[dominated], cheap);
  EXPECT_EQ(problem.representative(dominated, graph), cheap);
  EXPECT_EQ(problem.representative(top, graph), top);
  EXPECT_TRUE(problem.mandatory[root]);
  EXPECT_TRUE(problem.mandatory[a]);
  EXPECT_TRUE(problem.mandatory[x]);
  EXPECT_FALSE(problem.needed[y]);
  EXPECT_FALSE(problem.needed[b]);
  (void)x_leaf;
  (void)y_leaf;
  (void)self_loop;
  (void)via_b;
  EXPECT_DOUBLE_EQ(problem.lower_bound, 1 + 1 + 1);

  // Without simplification only the self loop and the reachability pruning remain.
  ReductionOptions plain;
  plain.simplify = false;
  const ReducedProblem unsimplified = reduce_problem(graph, plain);
  EXPECT_EQ(unsimplified.candidates[a].size(), 3u);  // cheap, dominated, via_b
  EXPECT_TRUE(unsimplified.needed[b]);
}

TEST(ProblemReduction, FreeClassesAndUpperBound) {
  ExtractionGraph graph;
  const ClassIndex weight = graph.add_class("w"), merged = graph.add_class("merged"),
                   op = graph.add_class("op"), root = graph.add_class("root");
  const NodeIndex w = graph.add_node(weight, "w", {}, 0);
  const NodeIndex concat = graph.add_node(merged, "concat", {weight, weight}, 0);  // free too
  const NodeIndex fast = graph.add_node(op, "fast", {merged}, 2);
  const NodeIndex slow = graph.add_node(op, "slow", {weight}, 50);
  graph.add_node(root, "out", {op}, 1);
  graph.roots = {root};

  ReductionOptions options;
  options.upper_bound = 3;  // a known extraction costs 3: "slow" cannot beat it
  const ReducedProblem problem = reduce_problem(graph, options);
  EXPECT_EQ(problem.free_choice[weight], w);
  EXPECT_EQ(problem.free_choice[merged], concat);
  EXPECT_FALSE(problem.needed[weight]);
  EXPECT_EQ(problem.candidates[op], std::vector<NodeIndex>{fast});
  EXPECT_TRUE(problem.child_classes[fast].empty());  // free children need no decision
  // "slow" needs only free classes too, so "fast" dominates it; the bound would also drop it.
  EXPECT_EQ(problem.representative(slow, graph), fast);
}

TEST(ProblemReduction, ReportsInfeasibleRoots) {
  ExtractionGraph graph;
  const ClassIndex root = graph.add_class("root");
  graph.add_node(root, "loop", {root}, 1);
  graph.roots = {root};
  const ReducedProblem problem = reduce_problem(graph);
  EXPECT_TRUE(problem.infeasible);
  EXPECT_NE(problem.infeasible_reason.find("root"), std::string::npos);
}
