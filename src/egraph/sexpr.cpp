#include "egraph/sexpr.h"

namespace saturate::egraph {

SExpr parse_application_text(std::string_view text) {
  return parse_sexpr(text, "", Brackets::InAtoms);
}

Application application(const SExpr& expression) {
  if (expression.is_atom()) return Application{expression.text, {}, false};
  if (expression.items.empty() || !expression.items.front().is_atom()) {
    throw ParseError(
        expression.items.empty() ? expression.location : expression.items.front().location,
        "a list must start with an operator name, as in (f ?x)");
  }
  return Application{expression.items.front().text,
                     std::span<const SExpr>(expression.items).subspan(1), true};
}

std::string quote_label(std::string_view text) {
  return quote_atom(text, Brackets::InAtoms);
}

}  // namespace saturate::egraph
