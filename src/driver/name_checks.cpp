#include "driver/name_checks.h"

#include <cstdint>

#include "support/error.h"
#include "support/utf8.h"

namespace saturate::driver {
namespace {

// The name with its bytes past ASCII written as \xNN, for the message.
std::string printable(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      text += c;
    } else {
      text += "\\x";
      text += kHex[byte >> 4];
      text += kHex[byte & 0xF];
    }
  }
  return text;
}

}  // namespace

void check_rule_names(const eqsat::RuleSet& rules) {
  auto check = [](const std::string& name, const SourceLocation& location) {
    if (!is_valid_utf8(name)) {
      throw Error(location.to_string() + ": the rule name '" + printable(name) +
                  "' is not valid UTF-8");
    }
  };
  for (const eqsat::RewriteRule& rule : rules.rules) check(rule.name, rule.location);
  for (const eqsat::MultiPatternRule& rule : rules.multi_rules) check(rule.name, rule.location);
}

void check_rule_names(const pm::Module& module, const std::string& path) {
  for (const pm::Rule& rule : module.rules) {
    if (!is_valid_utf8(rule.name)) {
      throw Error(path + ": the rule name '" + printable(rule.name) + "' (line " +
                  std::to_string(rule.line) + " of the PyPM source) is not valid UTF-8");
    }
  }
}

}  // namespace saturate::driver
