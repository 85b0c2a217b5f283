#include "support/strings.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "support/error.h"

namespace saturate {

std::string join_ints(const std::vector<int64_t>& values, std::string_view separator) {
  return join(values, separator, [](int64_t v) { return std::to_string(v); });
}

std::string format_fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string format_double(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  // Keep a marker of floatness so that "2" written for a float reads back as a float.
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto result = std::from_chars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end || begin == end) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  double value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto result = std::from_chars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end || begin == end) return std::nullopt;
  return value;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static const char kDigits[] = "0123456789abcdef";
      out += "\\x";
      out += kDigits[byte >> 4];
      out += kDigits[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  // An ifstream opens a directory and reads it as an empty file.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "' for reading");
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw Error("error while reading '" + path + "'");
  return contents.str();
}

}  // namespace saturate
