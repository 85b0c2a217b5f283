#pragma once

// Semantic checks of a Module (docs/PYPM.md §3, "Checks on load"). The .pmb reader applies the
// same checks as it reads, naming byte offsets; check_module() applies them to a Module built in
// C++. Each check_* helper returns what is wrong, or nothing when the item is fine, so that both
// callers word and locate the error their own way. The checks on calls between definitions
// (recursion that cannot terminate) are in pm/recursion_check.h.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/op_kind.h"
#include "pm/core.h"

namespace saturate::pm {

// Throws PatternError naming the definition or rule (and source line) of the first problem.
void check_module(const Module& module);

// How a variable is used, which decides the kinds it may have.
enum class VarUse : uint8_t {
  TermPattern,  // a pattern VAR, a match constraint's subject, a shape/dtype expression
  OpHead,       // a head VAR
  AnyExpr,      // x.op / x.attrs.a work on either kind
};

std::optional<std::string> check_var(const std::vector<Var>& vars, uint32_t var, VarUse use);

// Arity (for non-variadic operators) and attribute names of an application.
std::optional<std::string> check_application(ir::OpKind op, size_t num_inputs,
                                             const std::vector<AttrExpr>& attrs);

// A replacement application must give every attribute that has no default.
std::optional<std::string> check_construction(ir::OpKind op, const std::vector<AttrExpr>& attrs);

// The call's argument count and kinds against the callee's parameters.
std::optional<std::string> check_call(const Definition& callee,
                                      const std::vector<CallArg::Kind>& arg_kinds);

// Alternate `index` of `definition` declares the parameters with the kinds of alternate 0.
std::optional<std::string> check_parameters(const Definition& definition, size_t index);

// The variable kinds an expression's tag requires, or nothing for literals and operators.
std::optional<VarUse> expr_var_use(Expr::Tag tag);

}  // namespace saturate::pm
