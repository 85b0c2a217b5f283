#include "egraph/multipattern.h"

#include <algorithm>
#include <utility>

#include "support/hash.h"

namespace saturate::egraph {
namespace {

using SharedVars = SmallVector<Var, 4>;

std::size_t shared_key(const Subst& subst, const SharedVars& shared) {
  std::size_t seed = 0;
  for (Var var : shared) hash_combine(seed, subst.at(var).value());
  return seed;
}

bool agree(const Subst& left, const Subst& right, const SharedVars& shared) {
  for (Var var : shared) {
    if (left.at(var) != right.at(var)) return false;
  }
  return true;
}

Match extend(const Match& left, const RootedSubst& right) {
  Match joined = left;
  joined.roots.push_back(right.root);
  for (const Binding& binding : right.subst) {
    if (!joined.subst.get(binding.var)) joined.subst.insert(binding.var, binding.eclass);
  }
  return joined;
}

}  // namespace

std::vector<Match> join_matches(std::span<const std::vector<RootedSubst>> per_pattern,
                                std::size_t limit, RootOrder order) {
  // Whether `right` may follow the roots already in `left`.
  auto fits = [order](const Match& left, const RootedSubst& right) {
    switch (order) {
      case RootOrder::any:
        return true;
      case RootOrder::distinct:
        return std::find(left.roots.begin(), left.roots.end(), right.root) == left.roots.end();
      case RootOrder::increasing:
        return left.roots.back() < right.root;
    }
    return true;
  };
  std::vector<Match> partial;
  if (per_pattern.empty() || limit == 0) return partial;
  for (const RootedSubst& match : per_pattern[0]) {
    if (per_pattern.size() == 1 && partial.size() >= limit) break;
    partial.push_back(Match{{match.root}, match.subst, nullptr});
  }
  for (std::size_t i = 1; i < per_pattern.size(); ++i) {
    const std::vector<RootedSubst>& next = per_pattern[i];
    if (partial.empty() || next.empty()) return {};
    // Every match of one pattern binds the same variables, so the first ones tell which are shared.
    SharedVars shared;
    for (const Binding& binding : next[0].subst) {
      if (partial[0].subst.get(binding.var)) shared.push_back(binding.var);
    }
    std::size_t cap = std::min(i + 1 == per_pattern.size() ? limit : kNoLimit, kMaxJoinedMatches);
    std::vector<Match> joined;
    if (shared.empty()) {
      for (const Match& left : partial) {
        for (const RootedSubst& right : next) {
          if (joined.size() >= cap) break;
          if (fits(left, right)) joined.push_back(extend(left, right));
        }
      }
    } else {
      std::vector<std::pair<std::size_t, std::size_t>> index;  // (key, position in next)
      index.reserve(next.size());
      for (std::size_t j = 0; j < next.size(); ++j) {
        index.emplace_back(shared_key(next[j].subst, shared), j);
      }
      std::sort(index.begin(), index.end());
      for (const Match& left : partial) {
        if (joined.size() >= cap) break;
        std::size_t key = shared_key(left.subst, shared);
        auto first =
            std::lower_bound(index.begin(), index.end(), std::make_pair(key, std::size_t{0}));
        for (auto it = first; it != index.end() && it->first == key; ++it) {
          const RootedSubst& right = next[it->second];
          if (!agree(left.subst, right.subst, shared) || !fits(left, right)) continue;
          if (joined.size() >= cap) break;
          joined.push_back(extend(left, right));
        }
      }
    }
    partial = std::move(joined);
  }
  return partial;
}

}  // namespace saturate::egraph
