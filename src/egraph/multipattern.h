#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "egraph/match.h"

namespace saturate::egraph {

// Combines the matches of several patterns into matches of the multi-pattern they form: the
// product of the lists, keeping the combinations whose shared variables are bound to the same
// class (TENSAT's COMPATIBLE check). Lists are joined left to right; when the next pattern shares
// variables with those before it, it is joined through an index on the shared classes rather than
// the full product. Returns at most `limit` matches.
//
// Intermediate joins are not limited: with three or more patterns of which the first two share
// nothing, the product of those two is built in full.
//
// `order` prunes while joining rather than after: with `distinct`, no two patterns match one
// class; with `increasing`, the roots are in increasing order (interchangeable patterns). Three
// patterns over n matches each would otherwise build n^3 combinations before the filter (k_multi
// 3 on Inception-v3: past 24 GB). At most kMaxJoinedMatches are built at any step.
enum class RootOrder { any, distinct, increasing };
inline constexpr std::size_t kMaxJoinedMatches = 1'000'000;
std::vector<Match> join_matches(std::span<const std::vector<RootedSubst>> per_pattern,
                                std::size_t limit = kNoLimit, RootOrder order = RootOrder::any);

}  // namespace saturate::egraph
