#include "cli/name_checks.h"

#include <cstdint>

#include "support/error.h"

namespace saturate::cli {
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

bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    uint32_t code = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code = lead & 0x07;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += length;
  }
  return true;
}

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

}  // namespace saturate::cli
