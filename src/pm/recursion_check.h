#pragma once

// The call graph of a Module's definitions: an order that puts callees first, and the recursion
// problems that make matching never stop (docs/PYPM.md §3, "Checks on load"). Both the .pmb
// reader and check_module() (pm/module_check.h) reject a module with such a problem.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pm/core.h"

namespace saturate::pm {

// Definition indices with callees before their callers (a postorder of the call graph; within a
// cycle, some order). Fixpoints over definitions sweep in this order, so that a long chain of
// calls settles in one sweep, whatever order the file lists the definitions in.
std::vector<uint32_t> callees_first(const Module& module);

struct RecursionProblem {
  uint32_t definition;
  std::string message;
};

// A definition that cannot terminate: no base case (every alternate calls, directly or through
// others, a definition that never bottoms out), or left recursion (a chain of calls that returns
// to the same definition at the same value without consuming a node).
std::optional<RecursionProblem> find_recursion_problem(const Module& module);

}  // namespace saturate::pm
