#include "extract/implication_rows.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace saturate::extract {

namespace {

// Work cap (bitset words touched) for the transitive reduction of the implication rows.
constexpr double kMaxImplicationWork = 3e8;

}  // namespace

void find_implied_classes(const ExtractionGraph& graph, const MustSets& must,
                          ReducedProblem& problem) {
  problem.implied.assign(graph.class_count(), {});
  if (must.empty()) return;
  double work = 0;
  for (ClassIndex c : must.group) {
    for (std::size_t w = 0; w < must.words; ++w) {
      work += static_cast<double>(__builtin_popcountll(must.row(c)[w]));
    }
  }
  if (work * static_cast<double>(must.words) > kMaxImplicationWork) return;
  std::vector<std::uint64_t> others(must.words);
  for (ClassIndex c : must.group) {
    if (!problem.needed[c]) continue;
    // others = union over e in must(c) - {c} of must(e) - {e}.
    std::fill(others.begin(), others.end(), 0);
    for_each_member(must, c, [&](ClassIndex e) {
      if (e == c) return;
      const std::uint64_t* below = must.row(e);
      const std::size_t own_word = must.position[e] / 64;
      for (std::size_t w = 0; w < must.words; ++w) {
        const std::uint64_t own_bit =
            w == own_word ? std::uint64_t{1} << (must.position[e] % 64) : 0;
        others[w] |= below[w] & ~own_bit;
      }
    });
    for_each_member(must, c, [&](ClassIndex e) {
      if (e == c || !problem.needed[e]) return;
      if ((others[must.position[e] / 64] >> (must.position[e] % 64)) & 1) return;
      problem.implied[c].push_back(e);
    });
  }
  problem.has_implications = true;
}

void find_node_implications(const ExtractionGraph& graph, const MustSets& must,
                            ReducedProblem& problem) {
  problem.node_implications.assign(graph.class_count(), {});
  const std::size_t words = must.words;
  auto has = [&](const std::vector<std::uint64_t>& set, ClassIndex e) {
    return (set[must.position[e] / 64] >> (must.position[e] % 64)) & 1;
  };
  std::vector<std::vector<std::uint64_t>> forced;  // per candidate of c
  std::vector<std::uint64_t> any(words), others(words);
  std::size_t rows = 0;
  for (ClassIndex c : must.group) {
    const auto& candidates = problem.candidates[c];
    if (!problem.needed[c] || candidates.empty()) continue;
    // forced[k]: the classes that choosing candidate k forces, beyond must(c).
    forced.assign(candidates.size(), std::vector<std::uint64_t>(words, 0));
    std::fill(any.begin(), any.end(), 0);
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      for (ClassIndex d : problem.child_classes[candidates[k]]) {
        if (must.position[d] == MustSets::kOutside) continue;
        const std::uint64_t* below = must.row(d);
        for (std::size_t w = 0; w < words; ++w) forced[k][w] |= below[w];
      }
      const std::uint64_t* own = must.row(c);
      for (std::size_t w = 0; w < words; ++w) {
        forced[k][w] &= ~own[w];
        any[w] |= forced[k][w];
      }
    }
    // Group the forced classes by their users; within a group, a class forced through another
    // member's must-set needs no row of its own (a_member <= a_e already holds).
    std::map<std::vector<NodeIndex>, std::vector<ClassIndex>> groups;
    std::vector<NodeIndex> users;
    for (std::size_t w = 0; w < words; ++w) {
      for (std::uint64_t word = any[w]; word != 0; word &= word - 1) {
        const ClassIndex e = must.group[w * 64 + static_cast<std::size_t>(__builtin_ctzll(word))];
        if (!problem.needed[e] || problem.mandatory[e]) continue;
        users.clear();
        for (std::size_t k = 0; k < candidates.size(); ++k) {
          if (has(forced[k], e)) users.push_back(candidates[k]);
        }
        groups[users].push_back(e);
      }
    }
    for (auto& [group_users, members] : groups) {
      std::fill(others.begin(), others.end(), 0);
      for (ClassIndex e : members) {
        const std::uint64_t* below = must.row(e);
        const std::size_t own_word = must.position[e] / 64;
        for (std::size_t w = 0; w < words; ++w) {
          const std::uint64_t own_bit =
              w == own_word ? std::uint64_t{1} << (must.position[e] % 64) : 0;
          others[w] |= below[w] & ~own_bit;
        }
      }
      for (ClassIndex e : members) {
        if (!has(others, e)) problem.node_implications[c].push_back({e, group_users});
      }
    }
    rows += problem.node_implications[c].size();
  }
  problem.statistics.emplace_back("node implication rows", static_cast<double>(rows));
}

}  // namespace saturate::extract
