#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace saturate::ir {

// A parsed S-expression with its source location, shared by the graph text form and rule files.
// Atoms are symbols (any run of characters other than whitespace, parentheses, brackets,
// quotes and ';') or double-quoted strings; lists use (...) and vectors use [...].
// ';' starts a comment to the end of the line.
struct SExpr {
  enum class Kind { Symbol, String, List, Vector };

  Kind kind = Kind::Symbol;
  std::string text;          // atoms only
  std::vector<SExpr> items;  // lists and vectors only
  SourceLocation location;

  bool is_atom() const { return kind == Kind::Symbol || kind == Kind::String; }
  bool is_symbol(std::string_view name) const { return kind == Kind::Symbol && text == name; }
  // "symbol 'x'", "list", ... for error messages.
  std::string describe() const;
};

// Parses every top-level expression. Throws ParseError with line and column.
std::vector<SExpr> parse_sexprs(std::string_view text, const std::string& file = "");

// Whether an atom's text can be written as a bare symbol (else it needs quotes).
bool is_plain_symbol(std::string_view text);
// The atom as it must be written: bare if possible, else quoted with escapes.
std::string quote_atom(std::string_view text);

}  // namespace saturate::ir
