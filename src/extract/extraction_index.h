#pragma once

#include <span>
#include <vector>

#include "extract/extraction_graph.h"

namespace saturate::extract {

// For each class, the unfiltered nodes that have it as a child (each node once per class), so
// that an improvement in a class can re-evaluate exactly the nodes that use it.
class ParentIndex {
 public:
  explicit ParentIndex(const ExtractionGraph& graph);
  std::span<const NodeIndex> of(ClassIndex eclass) const {
    return {parents_.data() + offsets_[eclass], parents_.data() + offsets_[eclass + 1]};
  }

 private:
  std::vector<std::size_t> offsets_;  // class c's parents are parents_[offsets_[c], offsets_[c+1])
  std::vector<NodeIndex> parents_;
};

// A node's child classes, sorted, each once.
std::vector<ClassIndex> distinct_children(const ExtractionGraph::Node& node);

}  // namespace saturate::extract
