#pragma once

#include <string>
#include <string_view>

#include "pm/core.h"

namespace saturate::pm {

// Loads a .pmb (version 1) file per docs/PYPM.md §3 and applies every check listed there:
// magic, version, truncation, trailing bytes, string/variable/definition indices, variable
// kinds, operator names, arity and attribute names, call arity and argument kinds, parameter
// kinds of alternates, rule definitions and parameters, recursion without a base case and left
// recursion. Any other byte string is rejected with a FormatError naming the byte offset; the
// reader never reads out of bounds, never reserves memory a count merely claims, and limits
// nesting, so it is safe on untrusted input.
Module read_pmb(std::string_view bytes);

// Reads the file and loads it; I/O errors are saturate::Error, format errors FormatError (both
// name the path).
Module load_pmb(const std::string& path);

// Deepest nesting of patterns, expressions and terms the reader accepts.
inline constexpr int kMaxPmbNesting = 500;

}  // namespace saturate::pm
