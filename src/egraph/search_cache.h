#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/match.h"
#include "egraph/pattern.h"

namespace saturate::egraph {

// Searches each canonical pattern (see Pattern::canonicalize) at most once per e-graph state, so
// rules whose source patterns differ only in variable names share one search (TENSAT's
// Algorithm 1, applied to single- and multi-pattern rules alike). Make a new cache whenever the
// e-graph changes; the Runner makes one per iteration.
template <typename Graph>
class PatternSearchCache {
 public:
  using Op = typename Graph::Label;

  explicit PatternSearchCache(const Graph& egraph) : egraph_(egraph) {}

  // The matches of `pattern`, with variables named as in the canonical pattern. Searched with
  // `limit` on first use; a later call with a larger limit searches again only if the first
  // search was cut short. May hold more than `limit` substitutions; callers truncate. With
  // `since` > 0, only the matches new since that generation (Pattern::search).
  const std::vector<SearchMatches>& search(const CanonicalPattern<Op>& pattern, std::size_t limit,
                                           std::uint32_t since = 0) {
    auto [it, inserted] = entries_.try_emplace(key_of(pattern, since));
    Entry& entry = it->second;
    if (inserted || (!entry.complete && limit > entry.limit)) {
      entry.matches = pattern.pattern.search(egraph_, limit, since);
      std::size_t found = 0;
      for (const SearchMatches& matches : entry.matches) found += matches.substs.size();
      entry.limit = limit;
      entry.complete = found < limit;
      ++searches_;
    } else {
      ++reuses_;
    }
    return entry.matches;
  }

  // Says that one search will ask for `pattern` (with `since`). A pattern announced once, and
  // only once, is not stored: for_each_match() then searches it straight into the caller's hands.
  void announce(const CanonicalPattern<Op>& pattern, std::uint32_t since = 0) {
    ++announced_[key_of(pattern, since)];
  }

  // Calls visit(EClassId root, const Subst&) for each match of `pattern`, as search() would
  // return them; without storing them if the pattern was announced exactly once.
  template <typename Visit>
  void for_each_match(const CanonicalPattern<Op>& pattern, std::size_t limit, std::uint32_t since,
                      Visit&& visit) {
    auto announced = announced_.find(key_of(pattern, since));
    if (announced != announced_.end() && announced->second == 1) {
      ++searches_;
      pattern.pattern.for_each_match(egraph_, limit, since, visit);
      return;
    }
    std::size_t left = limit;
    for (const SearchMatches& matches : search(pattern, limit, since)) {
      for (const Subst& subst : matches.substs) {
        if (left-- == 0) return;
        visit(matches.eclass, subst);
      }
    }
  }

  const Graph& egraph() const { return egraph_; }
  // How many searches ran, and how many requests were answered from earlier searches.
  std::size_t searches() const { return searches_; }
  std::size_t reuses() const { return reuses_; }

 private:
  struct Entry {
    std::vector<SearchMatches> matches;
    std::size_t limit = 0;
    bool complete = false;
  };

  static std::string key_of(const CanonicalPattern<Op>& pattern, std::uint32_t since) {
    return pattern.key + "@" + std::to_string(since);
  }

  const Graph& egraph_;
  std::unordered_map<std::string, Entry> entries_;  // once per rule and iteration: not hot
  std::unordered_map<std::string, std::size_t> announced_;
  std::size_t searches_ = 0;
  std::size_t reuses_ = 0;
};

}  // namespace saturate::egraph
