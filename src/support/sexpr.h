#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace saturate {

// The one S-expression reader, behind the graph text form, rule files and the e-graph's
// patterns and terms. Atoms are symbols (any run of characters other than whitespace,
// parentheses, quotes and ';') or double-quoted strings with \" \\ \n escapes; lists use (...).
// ';' starts a comment to the end of the line.
struct SExpr {
  enum class Kind { Symbol, String, List, Vector };

  Kind kind = Kind::Symbol;
  std::string text;          // atoms only
  std::vector<SExpr> items;  // lists and vectors only
  SourceLocation location;

  bool is_atom() const { return kind == Kind::Symbol || kind == Kind::String; }
  bool is_symbol(std::string_view name) const { return kind == Kind::Symbol && text == name; }
  // "symbol 'x'", "a list", ... for error messages.
  std::string describe() const;
};

// What '[' and ']' mean. The graph text form and rule files write vectors ([2 3]); the e-graph's
// generic patterns and terms have no vectors, and their operator labels may contain brackets
// (a shape written "[2,3]"), so there brackets are ordinary atom characters.
enum class Brackets { Vectors, InAtoms };

// Every top-level expression. Throws ParseError with line and column; nesting deeper than 1000
// levels is an error too (hostile input must not overflow the stack of recursive consumers).
std::vector<SExpr> parse_sexprs(std::string_view text, const std::string& file = "",
                                Brackets brackets = Brackets::Vectors);
// Exactly one expression.
SExpr parse_sexpr(std::string_view text, const std::string& file = "",
                  Brackets brackets = Brackets::Vectors);

// Whether an atom's text can be written as a bare symbol (else it needs quotes).
bool is_plain_symbol(std::string_view text, Brackets brackets = Brackets::Vectors);
// The atom as it must be written: bare if possible, else quoted with escapes.
std::string quote_atom(std::string_view text, Brackets brackets = Brackets::Vectors);

}  // namespace saturate
