#pragma once

#include "extract/extractor.h"

namespace saturate::extract {

// Greedy extraction by DAG cost (extraction-gym's faster-greedy-dag): each class keeps the set
// of classes its current choice needs, each with the cost of its node, and the sum of that set.
// A node's candidate set is its own class plus the union of its children's sets; the class
// takes the node whose set sums lowest, so a subterm shared by two children is paid once.
// Nodes are processed cheapest first from the leaves until nothing improves.
//
// Sets are snapshots, so a later improvement of a child can in rare cases close a cycle in the
// final choice, or leave a class without any choice although one exists; the extractor then
// returns bottom-up greedy's extraction instead (and says so in the status).
//
// The choice is then improved by reuse (reuse_improvement.h): a class whose value another
// extracted node already gives for free, such as the second output of a multi-output kernel
// chosen for a different class, switches to it.
class GreedyDagExtractor final : public Extractor {
 public:
  std::string name() const override { return "greedy-dag"; }
  ExtractionResult extract(const ExtractionGraph& graph,
                           const ExtractOptions& options = {}) const override;
};

}  // namespace saturate::extract
