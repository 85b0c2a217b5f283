#pragma once

// A second matcher written straight from the definitional semantics of docs/PYPM.md §2: every
// construct maps a substitution to the list of ALL its extensions under which the construct
// matches. No continuations, no early exit, no index: slow, but each case reads like its rule
// in the semantics. The property test checks the algorithmic Matcher against it.

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "pm/core.h"
#include "pm/match.h"

namespace saturate::pm {

// Every distinct binding of the definition's parameters under which it matches `value`, in the
// order found (duplicates removed). Throws PatternError where the algorithmic matcher would:
// guards on unbound variables or missing attributes, recursion deeper than max_call_depth.
// Precondition: the module passed check_module().
std::vector<Match> match_declaratively(const Module& module, const ir::Graph& graph,
                                       uint32_t definition, ir::ValueRef value,
                                       size_t max_call_depth = 10000);

}  // namespace saturate::pm
