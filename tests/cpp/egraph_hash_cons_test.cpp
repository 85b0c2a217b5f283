// The hash-cons: narrow nodes (at most two children) kept as packed slots, wider ones as full
// nodes, one map from the outside.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "egraph/enode.h"
#include "egraph/hash_cons.h"
#include "egraph/symbol.h"

namespace saturate::egraph {
namespace {

using Node = ENode<Symbol>;

Node node(const char* op, std::initializer_list<std::uint32_t> children) {
  ChildList list;
  for (std::uint32_t child : children) list.push_back(EClassId(child));
  return Node(Symbol(op), list);
}

TEST(HashCons, KeepsTheFirstIdOfEachNode) {
  HashCons<Symbol> memo;
  EXPECT_FALSE(memo.try_insert(node("f", {1, 2}), EClassId(7u)));
  EXPECT_EQ(memo.try_insert(node("f", {1, 2}), EClassId(8u)), EClassId(7u));
  EXPECT_EQ(memo.find(node("f", {1, 2})), EClassId(7u));
  EXPECT_FALSE(memo.find(node("f", {2, 1})));
  EXPECT_FALSE(memo.find(node("g", {1, 2})));  // a label never seen
  EXPECT_EQ(memo.size(), 1u);
}

TEST(HashCons, TellsArityApartForOneLabel) {
  HashCons<Symbol> memo;
  EXPECT_FALSE(memo.try_insert(node("f", {}), EClassId(1u)));
  EXPECT_FALSE(memo.try_insert(node("f", {3}), EClassId(2u)));
  EXPECT_FALSE(memo.try_insert(node("f", {3, 3}), EClassId(3u)));
  EXPECT_FALSE(memo.try_insert(node("f", {3, 3, 3}), EClassId(4u)));
  EXPECT_EQ(memo.find(node("f", {})), EClassId(1u));
  EXPECT_EQ(memo.find(node("f", {3})), EClassId(2u));
  EXPECT_EQ(memo.find(node("f", {3, 3})), EClassId(3u));
  EXPECT_EQ(memo.find(node("f", {3, 3, 3})), EClassId(4u));
  EXPECT_EQ(memo.size(), 4u);
}

TEST(HashCons, AgreesWithAPlainMapOnManyNodes) {
  HashCons<Symbol> memo;
  std::vector<std::pair<Node, EClassId>> reference;
  std::mt19937 rng(5);
  const char* labels[] = {"+", "*", "f", "g"};
  for (std::uint32_t i = 0; i < 20000; ++i) {
    std::uint32_t arity = rng() % 4;
    ChildList children;
    for (std::uint32_t k = 0; k < arity; ++k)
      children.push_back(EClassId(std::uint32_t(rng() % 50)));
    Node candidate(Symbol(labels[rng() % 4]), children);
    std::optional<EClassId> stored = memo.try_insert(candidate, EClassId(i));
    auto known = std::find_if(reference.begin(), reference.end(),
                              [&](const auto& entry) { return entry.first == candidate; });
    if (known == reference.end()) {
      ASSERT_FALSE(stored) << i;
      reference.emplace_back(candidate, EClassId(i));
    } else {
      ASSERT_EQ(stored, known->second) << i;
    }
  }
  EXPECT_EQ(memo.size(), reference.size());
  for (const auto& [key, id] : reference) EXPECT_EQ(memo.find(key), id);
  memo.clear();
  EXPECT_EQ(memo.size(), 0u);
  EXPECT_FALSE(memo.find(reference.front().first));
}

}  // namespace
}  // namespace saturate::egraph
