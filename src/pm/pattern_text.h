#pragma once

// Python-like text for the core calculus, for error messages and explanations:
// `matmul(transpose(x, perm=[1, 0]), y)`, `x.shape.rank == 2`, `Half(x)`.

#include <string>
#include <vector>

#include "pm/core.h"

namespace saturate::pm {

std::string to_string(const Expr& expr, const std::vector<Var>& vars);
std::string to_string(const Head& head, const std::vector<Var>& vars);
std::string to_string(const Pattern& pattern, const std::vector<Var>& vars, const Module& module);
std::string to_string(const Term& term, const std::vector<Var>& vars);
std::string to_string(BinaryOp op);

// "rules.py:12" (or "<module>:12" when the module has no source file).
std::string source_position(const Module& module, uint32_t line);

}  // namespace saturate::pm
