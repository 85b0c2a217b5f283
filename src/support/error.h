#pragma once

#include <stdexcept>
#include <string>

namespace saturate {

// The one exception type users see. Its message is meant to be printed as is:
// it names what went wrong, where (file, line, node), and, where possible, a fix.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A position in a text file, 1-based; line 0 means "unknown".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  std::string to_string() const;
};

// A syntax error in a text input (graph files, rule files): carries the location.
class ParseError : public Error {
 public:
  ParseError(SourceLocation location, const std::string& message);
  const SourceLocation& location() const { return location_; }

 private:
  SourceLocation location_;
};

}  // namespace saturate
