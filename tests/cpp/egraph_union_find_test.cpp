#include <gtest/gtest.h>

#include "egraph/flat_hash_map.h"
#include "egraph/small_vector.h"
#include "egraph/union_find.h"

namespace saturate::egraph {
namespace {

TEST(UnionFind, MakeSetGivesDenseRoots) {
  UnionFind uf;
  for (std::uint32_t i = 0; i < 5; ++i) {
    EClassId id = uf.make_set();
    EXPECT_EQ(id, EClassId(i));
    EXPECT_TRUE(uf.is_root(id));
    EXPECT_EQ(uf.find(id), id);
  }
  EXPECT_EQ(uf.size(), 5u);
}

TEST(UnionFind, LinkJoinsSetsUnderTheGivenRoot) {
  UnionFind uf;
  for (int i = 0; i < 6; ++i) uf.make_set();
  uf.link(EClassId(0u), EClassId(1u));
  uf.link(EClassId(2u), EClassId(3u));
  uf.link(EClassId(0u), EClassId(2u));
  for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(uf.find(EClassId(i)), EClassId(0u));
  EXPECT_EQ(uf.find(EClassId(4u)), EClassId(4u));
  EXPECT_FALSE(uf.is_root(EClassId(3u)));
  EXPECT_TRUE(uf.is_root(EClassId(5u)));
}

TEST(UnionFind, PathCompressionKeepsAnswers) {
  UnionFind uf;
  constexpr std::uint32_t kCount = 100;
  for (std::uint32_t i = 0; i < kCount; ++i) uf.make_set();
  // A chain 99 -> 98 -> ... -> 0.
  for (std::uint32_t i = kCount - 1; i > 0; --i) uf.link(EClassId(i - 1), EClassId(i));
  EXPECT_EQ(uf.find(EClassId(kCount - 1)), EClassId(0u));
  EXPECT_EQ(uf.find_compress(EClassId(kCount - 1)), EClassId(0u));
  for (std::uint32_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(uf.find_compress(EClassId(i)), EClassId(0u));
    EXPECT_EQ(uf.find(EClassId(i)), EClassId(0u));
  }
}

TEST(SmallVector, SpillsToTheHeapAndCopies) {
  SmallVector<std::uint32_t, 2> values{1, 2};
  values.push_back(3);
  values.push_back(values[0]);  // an element of the vector itself, across a reallocation
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[3], 1u);
  SmallVector<std::uint32_t, 2> copy = values;
  EXPECT_EQ(copy, values);
  SmallVector<std::uint32_t, 2> moved = std::move(copy);
  EXPECT_EQ(moved, values);
  SmallVector<std::uint32_t, 2> small{7};
  small = values;
  EXPECT_EQ(small, values);
  small = SmallVector<std::uint32_t, 2>{9};
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0], 9u);
  EXPECT_TRUE((SmallVector<std::uint32_t, 2>{1, 2} < SmallVector<std::uint32_t, 2>{1, 3}));
  EXPECT_FALSE((SmallVector<std::uint32_t, 2>{1, 3} < SmallVector<std::uint32_t, 2>{1, 3}));
}

struct IdentityHash {
  std::size_t operator()(int value) const { return static_cast<std::size_t>(value); }
};

TEST(FlatHashMap, InsertsFindsAndKeepsFirstValue) {
  FlatHashMap<int, int, IdentityHash> map;
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(map.try_insert(i, i * 2).has_value());
  EXPECT_EQ(map.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    const int* found = map.find(i);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, i * 2);
  }
  EXPECT_EQ(map.find(5000), nullptr);
  std::optional<int> existing = map.try_insert(7, 99);
  ASSERT_TRUE(existing.has_value());
  EXPECT_EQ(*existing, 14);
  map.clear();
  EXPECT_EQ(map.find(7), nullptr);
  EXPECT_FALSE(map.try_insert(7, 1).has_value());
}

}  // namespace
}  // namespace saturate::egraph
