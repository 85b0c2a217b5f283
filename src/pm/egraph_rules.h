#pragma once

// PyPM rules as non-destructive e-graph rewrites (docs/PYPM.md §4): the user writes a rule once
// and gets it inside equality saturation, free of the phase ordering of greedy rewriting.

#include <memory>
#include <vector>

#include "eqsat/optimizer.h"
#include "pm/core.h"
#include "pm/matcher.h"

namespace saturate::pm {

// One rewrite for the whole module. Its searcher runs the backtracking matcher at every tensor
// class of the clean e-graph and collects every match (each producer of a class is a choice
// point, so all equivalent forms are tried), evaluates each rule's guards on it, and builds the
// rule's replacement as a term of the tensor language. Its applier adds that term with
// eqsat::apply_replacement: shape-checked against the matched class and refused if it would
// close a cycle. Every rule whose guards hold is applied (the e-graph keeps all alternatives).
// A number in a replacement becomes a scalar float32 constant leaf, as `pm apply` builds it.
// Output k of a multi-output operator is an `output k` projection of its tuple class; a rule's
// further replacements (`return root, (s, t)`) merge s's class with t in the same application,
// so a fused kernel that both name is one e-node. Throws PatternError before the run for a rule
// that builds a split (the e-graph holds splits as TENSAT's binary splits).
eqsat::ExtraRules compile_egraph_rules(std::shared_ptr<const Module> module,
                                       eqsat::CycleFilter* filter, MatchOptions options = {});

}  // namespace saturate::pm
