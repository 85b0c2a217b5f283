#pragma once

#include <span>
#include <string>
#include <string_view>

#include "support/sexpr.h"

namespace saturate::egraph {

// The e-graph's generic patterns and terms, read by the one S-expression reader
// (support/sexpr.h) with brackets as atom characters: an expression is an operator atom, or a
// parenthesized list headed by one, "(f ?x)". It knows nothing about operators.
struct Application {
  std::string_view op;          // the atom's text, or the head of a list
  std::span<const SExpr> args;  // a list's arguments (empty for an atom)
  bool is_list = false;         // "(f)" is a list with no arguments, "f" an atom
};

// Exactly one expression; throws saturate::ParseError (with line and column) otherwise.
SExpr parse_application_text(std::string_view text);
// The expression as an application; throws ParseError for a list without an operator head.
Application application(const SExpr& expression);
// An operator's label as it must be written back: bare when possible, else quoted.
std::string quote_label(std::string_view text);

}  // namespace saturate::egraph
