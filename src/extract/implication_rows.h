#pragma once

// Rows that tighten the ILP's LP relaxation, built from the must-sets after the reduction:
// ReducedProblem::implied and ReducedProblem::node_implications (problem_reduction.h says what
// each row states and why it helps).

#include "extract/extraction_graph.h"
#include "extract/must_sets.h"
#include "extract/problem_reduction.h"

namespace saturate::extract {

// Implication rows a_c <= a_e for e in must(c), transitively reduced: e is kept only when no
// other class of must(c) already has e in its own must-set. Sets problem.has_implications,
// unless `must` is empty (too many classes) or the transitive reduction would exceed its work cap.
void find_implied_classes(const ExtractionGraph& graph, const MustSets& must,
                          ReducedProblem& problem);

// Rows sum_{n in users} x_n <= a_e (ReducedProblem::node_implications). `must` covers all needed
// classes: call only when problem.has_implications.
void find_node_implications(const ExtractionGraph& graph, const MustSets& must,
                            ReducedProblem& problem);

}  // namespace saturate::extract
