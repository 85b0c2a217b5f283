#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "egraph/huge_page_allocator.h"

namespace saturate::egraph {
namespace {

TEST(HugePageAllocator, LargeBlocksAreAlignedToHugePages) {
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> table(1 << 20);  // 8 MiB
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(table.data()) % HugePageAllocator<int>::kHugePage, 0u);
  std::iota(table.begin(), table.end(), 0);
  EXPECT_EQ(table[123456], 123456u);
  table.resize(3 << 20);  // grows through another large block
  EXPECT_EQ(table[123456], 123456u);
}

TEST(HugePageAllocator, SmallBlocksWorkAsUsual) {
  std::vector<int, HugePageAllocator<int>> small{1, 2, 3};
  small.push_back(4);
  EXPECT_EQ(small.size(), 4u);
  EXPECT_EQ(small.back(), 4);
}

}  // namespace
}  // namespace saturate::egraph
