#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace saturate {

// Joins the items' textual forms with a separator.
template <typename Range, typename ToString>
std::string join(const Range& items, std::string_view separator, ToString to_string) {
  std::string text;
  bool first = true;
  for (const auto& item : items) {
    if (!first) text += separator;
    first = false;
    text += to_string(item);
  }
  return text;
}

std::string join_ints(const std::vector<int64_t>& values, std::string_view separator = ", ");

// Shortest decimal text that parses back to exactly the same double.
std::string format_double(double value);
// Fixed-point text with the given number of decimals ("0.84" for 0.8412 and 2), for people.
std::string format_fixed(double value, int decimals);

// Strict parsers: the whole text must be the number, no trailing characters.
std::optional<int64_t> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);

bool ends_with(std::string_view text, std::string_view suffix);

// `text` safe to print on a terminal line: control characters (newlines, escape sequences)
// become \xNN, so a name from a model cannot forge output lines or move the cursor.
std::string printable(std::string_view text);

// Reads a whole file; throws saturate::Error naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace saturate
