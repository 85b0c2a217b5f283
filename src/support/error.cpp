#include "support/error.h"

namespace saturate {

std::string SourceLocation::to_string() const {
  std::string text = file.empty() ? "<input>" : file;
  if (line > 0) {
    text += ":" + std::to_string(line);
    if (column > 0) text += ":" + std::to_string(column);
  }
  return text;
}

ParseError::ParseError(SourceLocation location, const std::string& message)
    : Error(location.to_string() + ": " + message), location_(std::move(location)) {}

}  // namespace saturate
