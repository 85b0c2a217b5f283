#pragma once

// Validators for numeric options, so that nonsense is rejected before any work: CLI11 reads
// `--node-limit -5` into a size_t as a huge count, and `--time-limit nan` passes
// CLI::PositiveNumber (NaN compares false with everything).
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

#include "support/strings.h"

namespace saturate::cli {

// A whole number >= 0 (node, iteration, pass, run counts; a seed).
inline const CLI::Validator kCount(
    [](std::string& text) -> std::string {
      const auto value = parse_int(text);
      if (!value || *value < 0) return "expected a whole number >= 0, got '" + text + "'";
      return "";
    },
    "COUNT>=0", "count");

// A whole number >= 1.
inline const CLI::Validator kPositiveCount(
    [](std::string& text) -> std::string {
      const auto value = parse_int(text);
      if (!value || *value < 1) return "expected a whole number >= 1, got '" + text + "'";
      return "";
    },
    "COUNT>=1", "positive count");

// A finite number > 0; `what` names it in the message ("a number of seconds").
inline CLI::Validator positive_number(const std::string& what, const std::string& name,
                                      const std::string& description) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        const auto value = parse_double(text);
        if (!value || !std::isfinite(*value) || *value <= 0) {
          return "expected " + what + " > 0, got '" + text + "'";
        }
        return "";
      },
      name, description);
}

inline const CLI::Validator kPositiveNumber =
    positive_number("a number", "NUMBER>0", "positive number");  // scales
inline const CLI::Validator kPositiveSeconds =
    positive_number("a number of seconds", "SECONDS>0", "positive seconds");  // time limits

}  // namespace saturate::cli
