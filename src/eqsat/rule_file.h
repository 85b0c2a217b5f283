#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "eqsat/condition.h"
#include "eqsat/term.h"

namespace saturate::eqsat {

// lhs => rhs: wherever lhs matches, rhs computes the same tensor.
struct RewriteRule {
  std::string name;
  Term lhs;
  Term rhs;
  std::vector<Condition> conditions;  // all must hold for the rule to apply
  SourceLocation location;
};

// Several rewrites that apply together: every lhs must match at once, with shared variables
// bound to the same e-classes (TENSAT's multi-pattern rules, Algorithm 1).
struct MultiPatternRule {
  std::string name;
  std::vector<RewriteRule> parts;
  SourceLocation location;
  // `(unordered)` after `if`: the parts are interchangeable (merging A with B is merging B with
  // A, the concatenation in the other order), so of the matches that differ only in which class
  // each part matched, one is applied: the one with the classes in increasing order.
  bool unordered = false;
};

struct RuleSet {
  std::vector<RewriteRule> rules;
  std::vector<MultiPatternRule> multi_rules;

  void append(RuleSet other);
  size_t size() const { return rules.size() + multi_rules.size(); }
};

enum class RuleFileFormat {
  // One rule per line: `[name:] lhs => rhs [if CONDITION...]`, `lhs <=> rhs` for both
  // directions, a line that starts with `&` adds a part to the multi-pattern rule above it
  // (its conditions apply to the whole match), `;` starts a comment. See condition.h.
  // TENSAT's single-pattern files (`lhs=>rhs`, unnamed) read as they are.
  Saturate,
  // TENSAT's multi-pattern files: consecutive pairs of lines form one rule.
  TensatMulti,
};

// Throws ParseError with file, line and column: unknown operators, wrong slot counts, bad
// attribute values, a variable used both as tensor and as attribute, right-hand-side variables
// that no left-hand side binds, a left-hand side that is a bare variable.
RuleSet parse_rules(std::string_view text, const std::string& file,
                    RuleFileFormat format = RuleFileFormat::Saturate);
RuleSet load_rules(const std::string& path, RuleFileFormat format = RuleFileFormat::Saturate);

}  // namespace saturate::eqsat
