#pragma once

// Must-sets: for a class c, classes that every acyclic extraction using c also uses. The problem
// reduction (problem_reduction.cpp) drops nodes, finds mandatory classes and bounds costs with
// them; the implication rows (implication_rows.h) are built from them.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "extract/extraction_graph.h"

namespace saturate::extract {

// Must-sets (see drop_nodes_that_need_their_own_class in problem_reduction.cpp) are bitsets,
// quadratic in the number of classes: above this many needed classes they are computed per strongly
// connected component only (enough for the cycle test), and the bound and implication rows that
// need them whole are skipped. Both are optimizations, never needed for correctness.
constexpr std::size_t kMaxMustSetClasses = 20000;

// Per class of a group, a set of classes of the group, as bitsets.
struct MustSets {
  static constexpr std::size_t kOutside = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> position;  // per class: index in the group, or kOutside
  std::vector<ClassIndex> group;
  std::size_t words = 0;
  std::vector<std::uint64_t> bits;

  bool empty() const { return group.empty(); }
  const std::uint64_t* row(ClassIndex c) const { return bits.data() + position[c] * words; }
  std::uint64_t* row(ClassIndex c) { return bits.data() + position[c] * words; }
  bool contains(ClassIndex holder, ClassIndex c) const {
    if (position[holder] == kOutside || position[c] == kOutside) return false;
    return (row(holder)[position[c] / 64] >> (position[c] % 64)) & 1;
  }
};

// Calls f(e) for every class e in the must-set of c.
template <typename Function>
void for_each_member(const MustSets& must, ClassIndex c, Function f) {
  const std::uint64_t* row = must.row(c);
  for (std::size_t w = 0; w < must.words; ++w) {
    for (std::uint64_t word = row[w]; word != 0; word &= word - 1) {
      f(must.group[w * 64 + static_cast<std::size_t>(__builtin_ctzll(word))]);
    }
  }
}

// Greatest fixpoint of must(c) = {c} + intersection over c's alive nodes n of the union of
// must(e) over n's child classes e, restricted to the group. Every fixpoint is sound: by
// induction over an acyclic extraction, every class in must(d) appears in any acyclic
// extraction of d. Shrinking from "all classes" reaches the greatest, most useful one; the group
// should list children before parents so that few sweeps are needed.
MustSets compute_must_sets(const ExtractionGraph& graph, const std::vector<bool>& alive,
                           const std::vector<std::vector<ClassIndex>>& child_classes,
                           std::vector<ClassIndex> group);

// Must-sets over all needed classes, children first; empty when there are too many.
MustSets compute_global_must_sets(const ExtractionGraph& graph, const std::vector<bool>& alive,
                                  const std::vector<std::vector<ClassIndex>>& child_classes,
                                  const std::vector<bool>& needed);

}  // namespace saturate::extract
