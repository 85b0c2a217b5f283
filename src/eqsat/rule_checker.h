#pragma once

#include <cstdint>
#include <optional>
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

  // What the rule does to rounding, on the same cases: both sides run in float32, and again with
  // every tensor variable a float16 tensor (each result rounded to float16, as ONNX operators on
  // float16 do). A rule that only moves or regroups values (transposes, concats, splits) gives
  // identical values; one that reassociates arithmetic (matmul associativity, distributing a
  // product over a sum) does not: it is precision-sensitive, and its float16 error is the size
  // of that effect.
  bool exact_in_float32 = true;  // identical values on every case
  double float32_error = 0;      // max relative difference of the sides in float32
  // Max relative difference in float16; nullopt when a side does not type-check in float16.
  std::optional<double> float16_error;

  bool sound() const { return failure.empty(); }
  bool precision_sensitive() const { return !exact_in_float32; }
};

// Checks a rule numerically: draws random shapes for its tensor variables (and concat boundaries
// for those a split takes apart directly, as their e-classes would carry) and values for its
// attribute variables until both sides type-check and its conditions hold, then runs both sides
// in the reference interpreter on the same random inputs. A rule fails when the two sides
// differ, have different types, or no valid assignment can be found.
RuleCheckReport check_rule(const RewriteRule& rule, const RuleCheckOptions& options = {});
RuleCheckReport check_rule(const MultiPatternRule& rule, const RuleCheckOptions& options = {});

}  // namespace saturate::eqsat
