#include "extract/must_sets.h"

#include <algorithm>
#include <utility>

#include "extract/cycle_check.h"

namespace saturate::extract {

MustSets compute_must_sets(const ExtractionGraph& graph, const std::vector<bool>& alive,
                           const std::vector<std::vector<ClassIndex>>& child_classes,
                           std::vector<ClassIndex> group) {
  MustSets sets;
  sets.position.assign(graph.class_count(), MustSets::kOutside);
  for (std::size_t i = 0; i < group.size(); ++i) sets.position[group[i]] = i;
  sets.group = std::move(group);
  sets.words = (sets.group.size() + 63) / 64;
  const std::size_t words = sets.words;
  sets.bits.assign(sets.group.size() * words, ~std::uint64_t{0});
  // Bits past the group's end stay clear, so iterating a set never yields a class outside it.
  if (const std::size_t tail = sets.group.size() % 64; tail != 0) {
    for (std::size_t i = 0; i < sets.group.size(); ++i) {
      sets.bits[i * words + words - 1] = (std::uint64_t{1} << tail) - 1;
    }
  }
  std::vector<std::uint64_t> meet(words), join(words);
  for (bool shrunk = true; shrunk;) {
    shrunk = false;
    for (ClassIndex c : sets.group) {
      std::fill(meet.begin(), meet.end(), ~std::uint64_t{0});
      bool any = false;
      for (NodeIndex n : graph.class_nodes[c]) {
        if (!alive[n]) continue;
        any = true;
        std::fill(join.begin(), join.end(), 0);
        for (ClassIndex e : child_classes[n]) {
          if (sets.position[e] == MustSets::kOutside) continue;
          const std::uint64_t* other = sets.row(e);
          for (std::size_t w = 0; w < words; ++w) join[w] |= other[w];
        }
        for (std::size_t w = 0; w < words; ++w) meet[w] &= join[w];
      }
      if (!any) continue;
      meet[sets.position[c] / 64] |= std::uint64_t{1} << (sets.position[c] % 64);
      std::uint64_t* own = sets.row(c);
      for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t next = own[w] & meet[w];
        shrunk |= next != own[w];
        own[w] = next;
      }
    }
  }
  return sets;
}

MustSets compute_global_must_sets(const ExtractionGraph& graph, const std::vector<bool>& alive,
                                  const std::vector<std::vector<ClassIndex>>& child_classes,
                                  const std::vector<bool>& needed) {
  std::vector<std::vector<ClassIndex>> successors(graph.class_count());
  std::vector<ClassIndex> group;
  for (ClassIndex c = 0; c < graph.class_count(); ++c) {
    if (!needed[c]) continue;
    group.push_back(c);
    for (NodeIndex n : graph.class_nodes[c]) {
      if (!alive[n]) continue;
      auto& list = successors[c];
      list.insert(list.end(), child_classes[n].begin(), child_classes[n].end());
    }
  }
  if (group.size() > kMaxMustSetClasses) return {};
  // Tarjan numbers components children first.
  const std::vector<std::size_t> component = strongly_connected_components(successors);
  std::stable_sort(group.begin(), group.end(),
                   [&](ClassIndex a, ClassIndex b) { return component[a] < component[b]; });
  return compute_must_sets(graph, alive, child_classes, std::move(group));
}

}  // namespace saturate::extract
