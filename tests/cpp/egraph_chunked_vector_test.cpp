#include <gtest/gtest.h>

#include <string>

#include "egraph/chunked_vector.h"

namespace saturate::egraph {
namespace {

TEST(ChunkedVector, GrowsAcrossChunksWithoutMovingElements) {
  ChunkedVector<std::string, 2> items;  // chunks of four
  std::string& first = items.emplace_back();
  first = "zero";
  for (int i = 1; i < 11; ++i) items.push_back(std::to_string(i));
  ASSERT_EQ(items.size(), 11u);
  EXPECT_EQ(&items[0], &first);  // still where it was
  EXPECT_EQ(items[0], "zero");
  EXPECT_EQ(items[4], "4");
  EXPECT_EQ(items[10], "10");
}

TEST(ChunkedVector, CopiesAreDeep) {
  ChunkedVector<std::string, 2> items;
  for (int i = 0; i < 6; ++i) items.push_back(std::to_string(i));
  ChunkedVector<std::string, 2> copy = items;
  copy[5] = "changed";
  EXPECT_EQ(items[5], "5");
  EXPECT_EQ(copy.size(), 6u);
  EXPECT_EQ(copy[0], "0");
  ChunkedVector<std::string, 2> moved = std::move(copy);
  EXPECT_EQ(moved[5], "changed");
}

}  // namespace
}  // namespace saturate::egraph
