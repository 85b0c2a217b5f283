#pragma once

#include <cstddef>
#include <string>

#include "support/error.h"

namespace saturate::pm {

// A .pmb file that cannot be loaded. The offset is where the reader was when it found the
// problem, so that a hex dump locates it.
class FormatError : public Error {
 public:
  // `path` (optional) names the file in the message.
  FormatError(size_t offset, const std::string& detail, const std::string& path = "");
  size_t offset() const { return offset_; }
  // What was wrong, without the file and offset.
  const std::string& detail() const { return detail_; }

 private:
  size_t offset_;
  std::string detail_;
};

// A problem with the patterns themselves: a module that fails its semantic checks, or a
// matching/rewriting error (a guard reading an attribute the node lacks, a guard on an unbound
// variable, recursion too deep, an ill-typed replacement). It is an error, not a failed match.
class PatternError : public Error {
 public:
  using Error::Error;
};

}  // namespace saturate::pm
