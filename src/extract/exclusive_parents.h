#pragma once

#include <cstddef>
#include <vector>

#include "extract/extraction_graph.h"
#include "extract/problem_reduction.h"

namespace saturate::extract {

// Rows  sum_{p in users} x_p <= a_d  for sets of parent nodes of a class d that no minimal
// extraction uses together. Minimal: every chosen node is reachable from a root through chosen
// nodes. With non-negative costs some optimal extraction is minimal (drop what the roots do not
// reach), so the rows keep an optimum while they cut fractional points the other rows allow.
//
// Why they matter: two alternative candidates of one class, n1 and n2, may each reach d through
// their own route (n1 -> ... -> p1 -> d, n2 -> ... -> p2 -> d). The LP takes n1 and n2 half each,
// and pays for d half, since x_p1 <= a_d and x_p2 <= a_d only ask a_d >= 1/2; an extraction
// takes one route and pays for d whole. These rows say x_p1 + x_p2 <= a_d. SqueezeNet's and
// Inception-v3's parts have such half-integral LP optima.
//
// Exclusive parents are found through node dominators: a node n dominates a class e when every
// path from a root to e passes through n, so a minimal extraction using e chooses n. Two parents
// are exclusive when their dominators include two different candidates of one class.
struct ExclusiveParents {
  ClassIndex eclass;
  std::vector<NodeIndex> users;  // at least two, pairwise exclusive, not all of one class
};

struct ExclusiveParentsLimits {
  std::size_t max_parents = 200;                // classes with more parent nodes get no rows
  std::size_t max_dominator_entries = 4000000;  // beyond this, no rows at all (memory)
  std::size_t max_rows = 20000;
};

std::vector<ExclusiveParents> exclusive_parent_rows(const ExtractionGraph& graph,
                                                    const ReducedProblem& problem,
                                                    const ExclusiveParentsLimits& limits = {});

}  // namespace saturate::extract
