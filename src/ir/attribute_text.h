#pragma once

#include <string>

#include "ir/attribute.h"
#include "ir/op_registry.h"
#include "support/sexpr.h"

namespace saturate::ir {

// A name as text: bare when it is a plain symbol not starting with ':', else double-quoted.
std::string write_name(std::string_view name);

// How attribute values are written in text (graph files, rule files, DOT labels): integers,
// numbers with a decimal point, [1 0 2] lists, enumerations by name (relu, same, ...).
std::string write_attribute(const AttrValue& value, AttrKind kind);

// Reads an attribute value of the spec's kind. Enumerations accept their names or their
// numeric codes (TENSAT's rule files use codes); int lists accept [1 0 2] or TENSAT's "1_0_2" (at
// least two elements in that form, so that a lone integer is never mistaken for a list). Throws
// ParseError at the expression.
AttrValue parse_attribute(const SExpr& expr, const AttrSpec& spec);

}  // namespace saturate::ir
