#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace saturate::egraph {

// The S-expression reader behind Pattern::parse and Term::parse. It knows nothing about
// operators: an expression is an atom or a parenthesized list whose head is an atom. Atoms are
// runs of characters other than whitespace, parentheses, '"' and ';', or double-quoted strings
// (with \" and \\ escapes) for labels that contain spaces. ';' comments to the end of the line.
struct SExpr {
  std::string atom;          // the atom's text, or the head of a list
  bool is_list = false;      // "(f)" is a list with no arguments, "f" an atom
  std::vector<SExpr> items;  // a list's arguments (the head is `atom`)
  SourceLocation location;
};

// Exactly one expression; throws saturate::ParseError (with line and column) otherwise.
SExpr parse_sexpr(std::string_view text, const std::string& file = "");
std::vector<SExpr> parse_sexprs(std::string_view text, const std::string& file = "");

// An atom as it must be written back: bare when possible, else quoted.
std::string quote_atom(std::string_view text);

}  // namespace saturate::egraph
