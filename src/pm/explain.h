#pragma once

#include <string>
#include <string_view>

#include "ir/graph.h"
#include "pm/core.h"
#include "pm/matcher.h"

namespace saturate::pm {

// "Why did this (not) match": for each definition that has rules (every definition, in a
// module without rules), in file order, the tree of
// attempts the matcher makes at the named value (a node's name is its first output's) — every
// call and alternate it tried, and where each failed: operator or arity mismatch, attribute,
// nonlinear variable, constant, guard `expr` false, match constraint, unbound variable — then
// for each match, which rule's guard failed or which rule fires. Throws saturate::Error when
// the graph has no such value, PatternError for an invalid module or a matching error.
std::string explain(const ir::Graph& graph, const Module& module, std::string_view value_name,
                    const MatchOptions& options = {});

}  // namespace saturate::pm
