#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egraph/machine.h"
#include "egraph/match.h"
#include "egraph/pattern_ast.h"
#include "egraph/subst.h"

namespace saturate::egraph {

template <Operator Op>
struct CanonicalPattern;

// A pattern over the language Op, compiled for e-matching once when it is constructed.
//
//   auto pattern = Pattern<Symbol>::parse("(+ ?a (* ?b 0))");
//   for (const SearchMatches& match : pattern.search(egraph))      // egraph must be clean
//     for (const Subst& subst : match.substs) use(match.eclass, subst["?a"]);
//   EClassId id = pattern.instantiate(egraph, subst);               // add the pattern's term
//
// Leaves that are not variables are labels with no children, matched as nodes: in
// (matmul 0 ?a ?b) the 0 is whatever Op::parse("0", 0) makes of it, an attribute constant say.
// A repeated variable must bind one class; subterms whose variables are already bound (and
// ground subterms) are found by hash-cons lookup rather than enumerated.
template <Operator Op>
class Pattern {
 public:
  static Pattern parse(std::string_view text) { return Pattern(PatternAst<Op>::parse(text)); }

  explicit Pattern(PatternAst<Op> ast) : ast_(std::move(ast)) {
    if (ast_.empty()) throw Error("a pattern needs at least one node");
    for (const PatternNode<Op>& entry : ast_.entries()) {
      if (entry.is_var() && std::find(vars_.begin(), vars_.end(), *entry.var) == vars_.end())
        vars_.push_back(*entry.var);
    }
    program_ = Program<Op>::compile(ast_, vars_);
  }

  const PatternAst<Op>& ast() const { return ast_; }
  // In order of first appearance in ast(); every Subst from search() lists them in this order.
  const std::vector<Var>& vars() const { return vars_; }
  bool is_ground() const { return vars_.empty(); }
  // Whether search(egraph, limit, since) may skip old matches: the pattern has variables (a
  // ground pattern is one hash-cons lookup anyway) and is not a bare variable.
  bool supports_incremental_search() const { return !is_ground() && program_.uses_nodes(); }
  const Program<Op>& program() const { return program_; }
  std::string to_string() const { return ast_.to_string(); }

  // Matches in every class, at most `limit` substitutions in all. Only the classes that contain
  // the root's operator are visited (EGraph::classes_with_op); a variable root visits all.
  // With `since` > 0 (only if supports_incremental_search()), only the matches that use a node
  // stamped after generation `since` (Program::run).
  template <typename Graph>
  std::vector<SearchMatches> search(const Graph& egraph, std::size_t limit = kNoLimit,
                                    std::uint32_t since = 0) const {
    std::vector<SearchMatches> results;
    for_each_match(egraph, limit, since, [&results](EClassId root, const Subst& subst) {
      if (results.empty() || results.back().eclass != root)
        results.push_back(SearchMatches{root, {}});
      results.back().substs.push_back(subst);
    });
    return results;
  }

  // search() without collecting: calls visit(EClassId root, const Subst&) for each match, the
  // matches of one class one after another.
  template <typename Graph, typename Visit>
  void for_each_match(const Graph& egraph, std::size_t limit, std::uint32_t since,
                      Visit&& visit) const {
    if (limit == 0) return;
    if (since > 0 && !supports_incremental_search())
      throw Error("pattern " + to_string() + " cannot be searched incrementally");
    if (is_ground()) {
      if (std::optional<EClassId> id = lookup_ground(egraph)) visit(*id, Subst{});
      return;
    }
    typename Program<Op>::State state;
    std::size_t total = 0;
    auto visit_class = [&](EClassId id) {
      program_.run(
          egraph, id, state,
          [&](const Subst& subst) {
            visit(id, subst);
            return ++total < limit;
          },
          since);
      return total < limit;
    };
    const PatternNode<Op>& root = ast_[ast_.root()];
    if (root.is_var()) {
      for (const auto& eclass : egraph.classes()) {
        if (!visit_class(eclass.id)) break;
      }
    } else {
      for (EClassId id : egraph.classes_with_op(root.node.op.index())) {
        if (!visit_class(id)) break;
      }
    }
  }

  // Matches rooted in one class (empty substs if none).
  template <typename Graph>
  SearchMatches search_eclass(const Graph& egraph, EClassId id,
                              std::size_t limit = kNoLimit) const {
    SearchMatches matches{egraph.find(id), {}};
    if (limit == 0) return matches;
    typename Program<Op>::State state;
    program_.run(egraph, id, state, [&](const Subst& subst) {
      matches.substs.push_back(subst);
      return matches.substs.size() < limit;
    });
    return matches;
  }

  // Adds the pattern's term with variables replaced by their classes; returns the root's class.
  // Throws saturate::Error if a variable is unbound.
  template <typename Graph>
  EClassId instantiate(Graph& egraph, const Subst& subst) const {
    return instantiate_with(egraph, [&subst](Var var) { return subst.at(var); });
  }

  // instantiate() with the classes of the variables from class_of(Var) -> EClassId.
  template <typename Graph, typename ClassOf>
  EClassId instantiate_with(Graph& egraph, ClassOf&& class_of) const {
    SmallVector<EClassId, 16> ids;  // applied once per match: avoid the allocation
    instantiate_below_root(egraph, class_of, ids);
    const PatternNode<Op>& root = ast_.entries().back();
    if (root.is_var()) return class_of(*root.var);
    return egraph.add(with_children(root.node, ids));
  }

  // merge(instantiate_with(egraph, class_of), target), adding the pattern's root node straight
  // into the target's class (EGraph::add_into). Returns whether the e-graph changed.
  template <typename Graph, typename ClassOf>
  bool instantiate_into(Graph& egraph, ClassOf&& class_of, EClassId target) const {
    SmallVector<EClassId, 16> ids;
    instantiate_below_root(egraph, class_of, ids);
    const PatternNode<Op>& root = ast_.entries().back();
    if (root.is_var()) return egraph.merge(class_of(*root.var), target);
    return egraph.add_into(with_children(root.node, ids), target);
  }

  // The pattern with its variables renamed ?0, ?1, ... in order of appearance, so patterns that
  // differ only in variable names share one canonical form (TENSAT's Algorithm 1 searches each
  // canonical form once per iteration for all rules).
  CanonicalPattern<Op> canonicalize() const;

 private:
  template <typename Graph>
  std::optional<EClassId> lookup_ground(const Graph& egraph) const {
    SmallVector<EClassId, 16> ids;
    ids.reserve(ast_.size());
    for (const PatternNode<Op>& entry : ast_.entries()) {
      ENode<Op> node = entry.node;
      for (EClassId& child : node.children) child = ids[child.index()];
      std::optional<EClassId> id = egraph.lookup(node);
      if (!id || !egraph.is_visible(*id, node)) return std::nullopt;
      ids.push_back(*id);
    }
    return ids.back();
  }

  // The classes of every entry but the root (the last), added bottom-up.
  template <typename Graph, typename ClassOf>
  void instantiate_below_root(Graph& egraph, ClassOf& class_of,
                              SmallVector<EClassId, 16>& ids) const {
    const auto& entries = ast_.entries();
    ids.reserve(entries.size());
    for (std::size_t i = 0; i + 1 < entries.size(); ++i) {
      const PatternNode<Op>& entry = entries[i];
      if (entry.is_var())
        ids.push_back(class_of(*entry.var));
      else
        ids.push_back(egraph.add(with_children(entry.node, ids)));
    }
  }
  static ENode<Op> with_children(const ENode<Op>& node, const SmallVector<EClassId, 16>& ids) {
    ENode<Op> copy = node;
    for (EClassId& child : copy.children) child = ids[child.index()];
    return copy;
  }

  PatternAst<Op> ast_;
  std::vector<Var> vars_;
  Program<Op> program_;
};

template <Operator Op>
struct CanonicalPattern {
  Pattern<Op> pattern;
  // original_vars[i] is the variable that pattern.vars()[i] (named ?i) stands for.
  std::vector<Var> original_vars;
  // The canonical text; equal keys mean the same pattern up to variable names.
  std::string key;
};

template <Operator Op>
CanonicalPattern<Op> Pattern<Op>::canonicalize() const {
  PatternAst<Op> renamed;
  for (const PatternNode<Op>& entry : ast_.entries()) {
    if (entry.is_var()) {
      auto position = std::find(vars_.begin(), vars_.end(), *entry.var) - vars_.begin();
      renamed.add_var(Var("?" + std::to_string(position)));
    } else {
      renamed.add_node(entry.node.op, entry.node.children);
    }
  }
  Pattern canonical(std::move(renamed));
  std::string key = canonical.to_string();
  return CanonicalPattern<Op>{std::move(canonical), vars_, std::move(key)};
}

}  // namespace saturate::egraph
