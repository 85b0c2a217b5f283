#include "extract/extraction_index.h"

#include <algorithm>

namespace saturate::extract {

ParentIndex::ParentIndex(const ExtractionGraph& graph) {
  std::vector<std::vector<NodeIndex>> lists(graph.class_count());
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    if (graph.is_filtered(n)) continue;
    for (ClassIndex child : distinct_children(graph.nodes[n])) lists[child].push_back(n);
  }
  offsets_.reserve(lists.size() + 1);
  offsets_.push_back(0);
  for (const auto& list : lists) {
    parents_.insert(parents_.end(), list.begin(), list.end());
    offsets_.push_back(parents_.size());
  }
}

std::vector<ClassIndex> distinct_children(const ExtractionGraph::Node& node) {
  std::vector<ClassIndex> children = node.children;
  std::sort(children.begin(), children.end());
  children.erase(std::unique(children.begin(), children.end()), children.end());
  return children;
}

}  // namespace saturate::extract
