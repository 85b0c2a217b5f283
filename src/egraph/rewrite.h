#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/match.h"
#include "egraph/multipattern.h"
#include "egraph/pattern.h"
#include "egraph/search_cache.h"
#include "support/error.h"

namespace saturate::egraph {

// A named rewrite: source patterns (the searcher), an optional condition, and what to do with
// each match (the applier).
//
//   using Rw = Rewrite<Symbol>;
//   Rw commute = Rw::parse("commute-add", "(+ ?a ?b)", "(+ ?b ?a)");
//   Rw cancel = Rw::parse("cancel", "(/ ?x ?x)", "1")
//                   .with_condition([](const auto& egraph, const Match& match) {
//                     return !is_zero(egraph, match.subst["?x"]);
//                   });
//
// With one source pattern the applier pattern is instantiated and merged with the matched
// class. A multi-pattern rewrite has several source patterns that share variables; a match picks
// one match of each whose shared variables agree, and the i-th applier pattern is merged with the
// class the i-th source pattern matched:
//
//   Rw::parse_multi("merge-matmuls", {"(matmul ?x ?a)", "(matmul ?x ?b)"},
//                   {"(split0 (matmul ?x (concat ?a ?b)))", "(split1 (matmul ?x (concat ?a
//                   ?b)))"});
//
// Instead of applier patterns a rewrite may take a function that gets the e-graph and the match,
// adds and merges what it likes, and returns how many merges changed the e-graph.
template <Operator Op, typename A = NoAnalysis>
class Rewrite {
 public:
  using Graph = EGraph<Op, A>;
  using Condition = std::function<bool(const Graph&, const Match&)>;
  using ApplyFunction = std::function<std::size_t(Graph&, const Match&)>;
  // A searcher that is not an e-matching pattern (PyPM's backtracking matcher): returns at most
  // `limit` matches of the clean e-graph.
  using SearchFunction = std::function<std::vector<Match>(const Graph&, std::size_t limit)>;

  static Rewrite parse(std::string name, std::string_view searcher, std::string_view applier) {
    return parse_multi(std::move(name), {searcher}, {applier});
  }
  static Rewrite parse_multi(std::string name, const std::vector<std::string_view>& searchers,
                             const std::vector<std::string_view>& appliers) {
    return Rewrite(std::move(name), parse_all(searchers), parse_all(appliers));
  }
  // Two rewrites, "name" (lhs to rhs) and "name-rev" (rhs to lhs).
  static std::vector<Rewrite> parse_both_ways(const std::string& name, std::string_view lhs,
                                              std::string_view rhs) {
    std::vector<Rewrite> rewrites;
    rewrites.push_back(parse(name, lhs, rhs));
    rewrites.push_back(parse(name + "-rev", rhs, lhs));
    return rewrites;
  }

  // Throws saturate::Error naming the rule if there are no searchers, if the applier count
  // differs from the searcher count, or if an applier uses a variable no searcher binds.
  Rewrite(std::string name, std::vector<Pattern<Op>> searchers, std::vector<Pattern<Op>> appliers)
      : name_(std::move(name)), searchers_(std::move(searchers)), appliers_(std::move(appliers)) {
    check_searchers();
    if (appliers_.size() != searchers_.size()) {
      throw Error("rewrite '" + name_ + "' has " + std::to_string(searchers_.size()) +
                  " source patterns but " + std::to_string(appliers_.size()) +
                  " right-hand sides; each source pattern needs the one its class merges with");
    }
    for (const Pattern<Op>& applier : appliers_) {
      for (Var var : applier.vars()) {
        if (!binds(var)) {
          throw Error("rewrite '" + name_ + "': right-hand side " + applier.to_string() + " uses " +
                      std::string(var.name()) + ", which no source pattern binds");
        }
      }
    }
  }
  Rewrite(std::string name, std::vector<Pattern<Op>> searchers, ApplyFunction applier)
      : name_(std::move(name)),
        searchers_(std::move(searchers)),
        apply_function_(std::move(applier)) {
    check_searchers();
  }

  // A rewrite with its own searcher and applier.
  Rewrite(std::string name, SearchFunction searcher, ApplyFunction applier)
      : name_(std::move(name)),
        search_function_(std::move(searcher)),
        apply_function_(std::move(applier)) {}

  // Matches are applied only where the condition holds (checked at apply time, on the e-graph
  // as the earlier applications of the iteration left it).
  Rewrite& with_condition(Condition condition) & {
    condition_ = std::move(condition);
    return *this;
  }
  Rewrite&& with_condition(Condition condition) && {
    condition_ = std::move(condition);
    return std::move(*this);
  }
  // A multi-pattern rewrite whose patterns must match different classes (a tensor merge of an
  // operator with itself computes one tensor twice). Default: any combination, as in egg.
  Rewrite& with_distinct_roots() & {
    distinct_roots_ = true;
    return *this;
  }
  bool requires_distinct_roots() const { return distinct_roots_; }
  // A multi-pattern rewrite whose patterns are interchangeable: of the matches that differ only
  // in the order of their roots, the one with the roots in increasing order (implies distinct).
  Rewrite& with_ordered_roots() & {
    distinct_roots_ = ordered_roots_ = true;
    return *this;
  }
  bool requires_ordered_roots() const { return ordered_roots_; }

  const std::string& name() const { return name_; }
  const std::vector<Pattern<Op>>& searchers() const { return searchers_; }
  const std::vector<Pattern<Op>>& appliers() const { return appliers_; }
  bool is_multi_pattern() const { return searchers_.size() > 1; }
  bool has_condition() const { return static_cast<bool>(condition_); }

  std::vector<Match> search(const Graph& egraph, std::size_t limit = kNoLimit) const {
    PatternSearchCache<Graph> cache(egraph);
    return search(cache, limit);
  }

  // Whether search(cache, limit, since) may skip the matches that are not new since a
  // generation, and skipping them is exact: one source pattern that e-matches nodes, and
  // pattern appliers, so a match applied once with its condition holding is a no-op ever after
  // (its right-hand side is already in the class). A custom searcher or applier may not be.
  bool supports_incremental_search() const {
    return !search_function_ && !apply_function_ && !is_multi_pattern() &&
           searchers_[0].supports_incremental_search();
  }

  // Tells the cache which patterns search(cache, ..., since) will ask for (announce).
  void announce_searches(PatternSearchCache<Graph>& cache, std::uint32_t since = 0) const {
    if (search_function_) return;
    for (const CanonicalPattern<Op>& pattern : canonical_) cache.announce(pattern, since);
  }

  // At most `limit` matches. Each source pattern is searched through the cache in canonical
  // form; multi-pattern matches are joined on their shared variables (join_matches). With
  // `since` > 0 (only if supports_incremental_search()), only the matches that use a node
  // stamped after that generation.
  std::vector<Match> search(PatternSearchCache<Graph>& cache, std::size_t limit,
                            std::uint32_t since = 0) const {
    std::vector<Match> matches;
    search_into(cache, limit, since, matches);
    return matches;
  }

  // search(), appending to `matches` (whose capacity a caller may keep from one search to the
  // next).
  void search_into(PatternSearchCache<Graph>& cache, std::size_t limit, std::uint32_t since,
                   std::vector<Match>& matches) const {
    if (limit == 0) return;
    if (since > 0 && !supports_incremental_search())
      throw Error("rewrite '" + name_ + "' cannot be searched incrementally");
    if (search_function_) {
      std::vector<Match> found = search_function_(cache.egraph(), limit);
      if (matches.empty()) {
        matches = std::move(found);
        return;
      }
      matches.insert(matches.end(), std::make_move_iterator(found.begin()),
                     std::make_move_iterator(found.end()));
      return;
    }
    if (!is_multi_pattern()) {
      cache.for_each_match(canonical_[0], limit, since, [&](EClassId root, const Subst& subst) {
        matches.push_back(Match{{root}, original_names(0, subst), nullptr});
      });
      return;
    }
    std::vector<std::vector<RootedSubst>> per_pattern(searchers_.size());
    for (std::size_t i = 0; i < searchers_.size(); ++i) {
      for (const SearchMatches& found : cache.search(canonical_[i], kNoLimit)) {
        for (const Subst& subst : found.substs) {
          per_pattern[i].push_back(RootedSubst{found.eclass, original_names(i, subst)});
        }
      }
    }
    const RootOrder order = ordered_roots_    ? RootOrder::increasing
                            : distinct_roots_ ? RootOrder::distinct
                                              : RootOrder::any;
    std::vector<Match> joined = join_matches(per_pattern, limit, order);
    matches.insert(matches.end(), std::make_move_iterator(joined.begin()),
                   std::make_move_iterator(joined.end()));
  }

  // Whether matches can be kept as rows of classes (search_rows) and applied from them
  // (apply_row), which is lighter than a Match each: one source pattern, pattern appliers and no
  // condition.
  bool applies_from_rows() const {
    return !search_function_ && !apply_function_ && !condition_ && !is_multi_pattern();
  }
  // Classes per row: the root, then the source pattern's variables in order of appearance.
  std::size_t row_width() const { return 1 + canonical_[0].original_vars.size(); }

  // search(), appending each match as a row (row_width()) to `rows`; needs applies_from_rows().
  void search_rows(PatternSearchCache<Graph>& cache, std::size_t limit, std::uint32_t since,
                   std::vector<EClassId>& rows) const {
    if (!applies_from_rows())
      throw Error("rewrite '" + name_ + "' cannot keep its matches as rows");
    if (since > 0 && !supports_incremental_search())
      throw Error("rewrite '" + name_ + "' cannot be searched incrementally");
    const std::size_t width = row_width();
    cache.for_each_match(canonical_[0], limit, since, [&](EClassId root, const Subst& subst) {
      if (subst.size() + 1 != width)
        throw Error("rewrite '" + name_ + "': a match binds " + std::to_string(subst.size()) +
                    " variables");
      rows.push_back(root);
      for (const Binding& binding : subst) rows.push_back(binding.eclass);
    });
  }

  // Applies one row of search_rows(); returns how many merges changed the e-graph.
  std::size_t apply_row(Graph& egraph, const EClassId* row) const {
    const std::vector<Var>& vars = canonical_[0].original_vars;
    auto class_of = [&](Var var) {
      for (std::size_t k = 0; k < vars.size(); ++k) {
        if (vars[k] == var) return row[k + 1];
      }
      throw Error("rewrite '" + name_ + "': " + std::string(var.name()) + " is not bound");
    };
    return appliers_[0].instantiate_into(egraph, class_of, row[0]) ? 1 : 0;
  }

  struct Applied {
    bool condition_held = true;
    std::size_t merges = 0;  // merges that changed the e-graph
  };

  // Applies one match if the condition allows; returns how many merges changed the e-graph.
  std::size_t apply(Graph& egraph, const Match& match) const {
    return try_apply(egraph, match).merges;
  }

  // apply(), also telling whether the condition held (a match it held back may pass later).
  Applied try_apply(Graph& egraph, const Match& match) const {
    if (condition_ && !condition_(egraph, match)) return Applied{false, 0};
    if (apply_function_) return Applied{true, apply_function_(egraph, match)};
    std::size_t changed = 0;
    for (std::size_t i = 0; i < appliers_.size(); ++i) {
      auto class_of = [&match](Var var) { return match.subst.at(var); };
      if (appliers_[i].instantiate_into(egraph, class_of, match.roots[i])) ++changed;
    }
    return Applied{true, changed};
  }

 private:
  static std::vector<Pattern<Op>> parse_all(const std::vector<std::string_view>& texts) {
    std::vector<Pattern<Op>> patterns;
    patterns.reserve(texts.size());
    for (std::string_view text : texts) patterns.push_back(Pattern<Op>::parse(text));
    return patterns;
  }

  void check_searchers() {
    if (searchers_.empty()) throw Error("rewrite '" + name_ + "' has no source pattern");
    for (const Pattern<Op>& searcher : searchers_) canonical_.push_back(searcher.canonicalize());
  }

  bool binds(Var var) const {
    for (const Pattern<Op>& searcher : searchers_) {
      const std::vector<Var>& vars = searcher.vars();
      if (std::find(vars.begin(), vars.end(), var) != vars.end()) return true;
    }
    return false;
  }

  // Renames a substitution of canonical searcher i (?0, ?1, ...) back to the rule's variables.
  // A canonical pattern's matches bind ?0, ?1, ... in that order (Program::run binds in the
  // order of Pattern::vars), so binding k is ?k; the check keeps that an assumption that fails
  // loudly rather than silently.
  Subst original_names(std::size_t i, const Subst& canonical) const {
    const CanonicalPattern<Op>& pattern = canonical_[i];
    const std::vector<Var>& canonical_vars = pattern.pattern.vars();
    if (canonical.size() != canonical_vars.size())
      throw Error("rewrite '" + name_ + "': a match of " + pattern.key + " binds " +
                  std::to_string(canonical.size()) + " variables");
    Subst renamed;
    for (std::size_t k = 0; k < canonical.size(); ++k) {
      const Binding& binding = canonical.binding(k);
      if (binding.var != canonical_vars[k])
        throw Error("rewrite '" + name_ + "': a match of " + pattern.key + " binds " +
                    std::string(binding.var.name()) + " in place " + std::to_string(k));
      renamed.append_new(pattern.original_vars[k], binding.eclass);
    }
    return renamed;
  }

  std::string name_;
  std::vector<Pattern<Op>> searchers_;
  std::vector<CanonicalPattern<Op>> canonical_;
  std::vector<Pattern<Op>> appliers_;
  SearchFunction search_function_;
  ApplyFunction apply_function_;
  Condition condition_;
  bool distinct_roots_ = false;
  bool ordered_roots_ = false;
};

}  // namespace saturate::egraph
