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
std::vector<Match> join_matches(std::span<const std::vector<RootedSubst>> per_pattern,
                                std::size_t limit = kNoLimit);

}  // namespace saturate::egraph
