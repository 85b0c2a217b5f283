// EGraph::add_into: adding a node straight into a class gives the e-graph that add + merge gives.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/symbol.h"

namespace saturate::egraph {
namespace {

using Graph = EGraph<Symbol>;
using Node = ENode<Symbol>;

Node node(const char* op, std::initializer_list<EClassId> children) {
  return Node(Symbol(op), ChildList(children));
}

TEST(AddInto, ANewNodeJoinsTheTargetClass) {
  Graph egraph;
  EClassId a = egraph.add(node("a", {}));
  EClassId b = egraph.add(node("b", {}));
  EClassId fa = egraph.add(node("f", {a}));
  egraph.rebuild();
  EXPECT_TRUE(egraph.add_into(node("g", {b}), fa));
  EXPECT_EQ(egraph.class_count(), 3u);  // no class of its own
  EXPECT_EQ(egraph.node_count(), 4u);
  egraph.rebuild();
  EXPECT_EQ(egraph.lookup(node("g", {b})), egraph.find(fa));
  EXPECT_EQ(egraph.eclass(fa).size(), 2u);
  // (g b) is a parent of b: merging b away re-canonicalizes it.
  egraph.merge(b, a);
  egraph.rebuild();
  EXPECT_EQ(egraph.lookup(node("g", {a})), egraph.find(fa));
}

TEST(AddInto, AnExistingNodeMergesItsClass) {
  Graph egraph;
  EClassId a = egraph.add(node("a", {}));
  EClassId b = egraph.add(node("b", {}));
  EXPECT_TRUE(egraph.add_into(node("a", {}), b));
  EXPECT_TRUE(egraph.equivalent(a, b));
  EXPECT_FALSE(egraph.add_into(node("b", {}), a));  // already one class
  EXPECT_THROW(egraph.add_into(node("f", {EClassId(99u)}), a), Error);
  EXPECT_THROW(egraph.add_into(node("c", {}), EClassId(99u)), Error);
}

TEST(AddInto, GivesTheSameEGraphAsAddThenMerge) {
  Graph merged;
  Graph direct;
  std::mt19937 rng(11);
  const char* labels[] = {"f", "g", "+"};
  std::vector<EClassId> ids_merged;
  std::vector<EClassId> ids_direct;
  for (const char* leaf : {"a", "b", "c", "d"}) {
    ids_merged.push_back(merged.add(node(leaf, {})));
    ids_direct.push_back(direct.add(node(leaf, {})));
  }
  for (int round = 0; round < 6; ++round) {
    for (int step = 0; step < 60; ++step) {
      std::size_t x = rng() % ids_merged.size();
      std::size_t y = rng() % ids_merged.size();
      std::size_t target = rng() % ids_merged.size();
      const char* label = labels[rng() % 3];
      Node for_merged = label[0] == '+' ? node(label, {ids_merged[x], ids_merged[y]})
                                        : node(label, {ids_merged[x]});
      Node for_direct = label[0] == '+' ? node(label, {ids_direct[x], ids_direct[y]})
                                        : node(label, {ids_direct[x]});
      bool changed = merged.merge(merged.add(for_merged), ids_merged[target]);
      EXPECT_EQ(direct.add_into(for_direct, ids_direct[target]), changed);
      // Keep some results as new operands.
      if (rng() % 3 == 0) {
        ids_merged.push_back(merged.add(node("h", {ids_merged[x]})));
        ids_direct.push_back(direct.add(node("h", {ids_direct[x]})));
      }
    }
    merged.rebuild();
    direct.rebuild();
    ASSERT_EQ(merged.node_count(), direct.node_count()) << round;
    ASSERT_EQ(merged.class_count(), direct.class_count()) << round;
    for (std::size_t i = 0; i < ids_merged.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        ASSERT_EQ(merged.equivalent(ids_merged[i], ids_merged[j]),
                  direct.equivalent(ids_direct[i], ids_direct[j]))
            << i << " " << j;
      }
    }
  }
}

}  // namespace
}  // namespace saturate::egraph
