#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eqsat/rule_file.h"

namespace saturate::eqsat {

struct RuleCheckOptions {
  int cases_required = 5;    // distinct valid shape/attribute assignments to check
  int max_attempts = 20000;  // random assignments tried to find them
  uint64_t seed = 1;
  double tolerance = 1e-9;  // on |lhs - rhs| / (1 + |rhs|), computed in float64
};

struct RuleCheckReport {
  std::string rule;
  int cases_checked = 0;
  double max_error = 0;
  std::vector<std::string> cases;  // "?a=[2 3] ?b=[3 4]" for each checked assignment
  std::string failure;             // empty when sound on every case

  bool sound() const { return failure.empty(); }
};

// Checks a rule numerically: draws random shapes for its tensor variables (and concat boundaries
// for those a split takes apart directly, as their e-classes would carry) and values for its
// attribute variables until both sides type-check and its conditions hold, then runs both sides
// in the reference interpreter on the same random inputs. A rule fails when the two sides
// differ, have different types, or no valid assignment can be found.
RuleCheckReport check_rule(const RewriteRule& rule, const RuleCheckOptions& options = {});
RuleCheckReport check_rule(const MultiPatternRule& rule, const RuleCheckOptions& options = {});

}  // namespace saturate::eqsat
