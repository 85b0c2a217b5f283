#include <gtest/gtest.h>

#include <string>

#include "egraph/chunked_vector.h"

namespace saturate::egraph {
namespace {

TEST(ChunkedVector, GrowsAcrossChunksWithoutMovingElements) {
  ChunkedVector<std::string> items;
  std::string& first = items.emplace_back();
  first = "zero";
  std::string* in_second_chunk = nullptr;
  for (int i = 1; i < 1000; ++i) {
    items.push_back(std::to_string(i));
    if (i == 64) in_second_chunk = &items[64];
  }
  ASSERT_EQ(items.size(), 1000u);
  EXPECT_EQ(&items[0], &first);  // still where they were
  EXPECT_EQ(&items[64], in_second_chunk);
  EXPECT_EQ(items[0], "zero");
  // Every index around the chunk boundaries (64, 128, 256, 512) holds its own value.
  for (int i = 1; i < 1000; ++i) ASSERT_EQ(items[static_cast<std::size_t>(i)], std::to_string(i));
}

TEST(ChunkedVector, CopiesAreDeep) {
  ChunkedVector<std::string> items;
  for (int i = 0; i < 6; ++i) items.push_back(std::to_string(i));
  ChunkedVector<std::string> copy = items;
  copy[5] = "changed";
  EXPECT_EQ(items[5], "5");
  EXPECT_EQ(copy.size(), 6u);
  EXPECT_EQ(copy[0], "0");
  ChunkedVector<std::string> moved = std::move(copy);
  EXPECT_EQ(moved[5], "changed");
}

TEST(ChunkedVector, AssigningAShorterVectorLeavesFreshSlotsBehind) {
  ChunkedVector<std::string> longer;
  for (int i = 0; i < 100; ++i) longer.push_back("long" + std::to_string(i));
  ChunkedVector<std::string> shorter;
  for (int i = 0; i < 3; ++i) shorter.push_back("short" + std::to_string(i));
  longer = shorter;
  ASSERT_EQ(longer.size(), 3u);
  EXPECT_EQ(longer[2], "short2");
  EXPECT_TRUE(longer.emplace_back().empty());  // not "long3"
  shorter = longer;
  EXPECT_EQ(shorter.size(), 4u);
}

}  // namespace
}  // namespace saturate::egraph
