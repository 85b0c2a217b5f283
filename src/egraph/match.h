#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "egraph/id.h"
#include "egraph/small_vector.h"
#include "egraph/subst.h"

namespace saturate::egraph {

// "No limit" for every search and match limit.
inline constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();

// The matches of one pattern rooted in one e-class (what Pattern::search returns per class).
struct SearchMatches {
  EClassId eclass;
  std::vector<Subst> substs;
};

// One match of one pattern, flattened.
struct RootedSubst {
  EClassId root;
  Subst subst;
};

// One match of a rewrite's source patterns: the class each pattern matched, in the rewrite's
// searcher order, and one substitution for all their variables. Single-pattern rewrites have
// one root.
struct Match {
  SmallVector<EClassId, 2> roots;
  Subst subst;
  // What a custom searcher found beyond class bindings (PyPM's operator variables, say), for
  // its own applier; empty for pattern searchers.
  std::shared_ptr<const void> payload;

  EClassId root() const { return roots[0]; }
};

// Whether the match's patterns matched pairwise different classes.
inline bool roots_distinct(const Match& match) {
  for (std::size_t i = 0; i < match.roots.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (match.roots[i] == match.roots[j]) return false;
    }
  }
  return true;
}

}  // namespace saturate::egraph
