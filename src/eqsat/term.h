#pragma once

#include <string>
#include <vector>

#include "eqsat/language.h"
#include "ir/attribute.h"
#include "support/error.h"
#include "support/sexpr.h"

namespace saturate::eqsat {

// A term of the tensor language as rules write it: an operator applied to its slots, a
// variable (?x) standing for a tensor or an attribute, an attribute value, or a scalar float32
// constant (only built by PyPM replacements; rule files have no syntax for it).
struct Term {
  enum class Kind { Apply, TensorVariable, AttributeVariable, AttributeValue, Constant };

  Kind kind = Kind::Apply;
  const LanguageOp* op = nullptr;              // Apply
  std::string variable;                        // variables, without the '?'
  ir::AttrValue value;                         // AttributeValue
  ir::AttrKind attr_kind = ir::AttrKind::Int;  // attribute variables and values
  std::vector<Term> args;                      // Apply: one per slot (the variadic slot repeated)
  SourceLocation location;
  double constant = 0;  // Constant

  bool is_variable() const {
    return kind == Kind::TensorVariable || kind == Kind::AttributeVariable;
  }
  // Back to the rule syntax, e.g. "(matmul none ?a ?b)".
  std::string to_string() const;
};

// Reads a term, checking operator names, slot counts, attribute literals and that tensors and
// attributes are not mixed up. The root must be an operator application. Throws ParseError.
Term parse_term(const SExpr& expr);
// A right-hand side: a term as above, or a bare tensor variable (x => ?x).
Term parse_replacement(const SExpr& expr);

// Variables in first-occurrence order (each once).
std::vector<const Term*> variables_of(const Term& term);

}  // namespace saturate::eqsat
