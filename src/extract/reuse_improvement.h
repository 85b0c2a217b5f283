#pragma once

#include <cstddef>
#include <vector>

#include "extract/extraction_graph.h"
#include "support/deadline.h"

namespace saturate::extract {

// A local improvement of a complete, acyclic choice: a class switches to another of its nodes
// when every child of that node is already extracted and the switch lowers the DAG cost (the
// old node's cost, and that of every class only it kept alive, is saved; the new node's is
// paid). Greedy choices miss these because each class is priced before the others are known:
// a multi-output kernel chosen for one value makes its other outputs free projections, and a
// value computed anyway can replace a separate computation of the same class.
//
// Best switch first: each pass prices every switch against the choice it starts from and makes
// them in order of saving, each priced again against those made before it (the first improving
// switch found can give up a kernel that a better switch would have shared). A switch that
// would close a cycle (a new child that needs the class) is not made, so the choice stays
// acyclic. Runs until no switch improves, at most `max_switches` times, or until the deadline;
// returns the number of switches made. An incomplete or cyclic choice is left as it is.
std::size_t improve_by_reuse(const ExtractionGraph& graph, std::vector<NodeIndex>& choice,
                             const Deadline& deadline, std::size_t max_switches = 10'000);

}  // namespace saturate::extract
