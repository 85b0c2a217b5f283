#pragma once

#include <cstdint>
#include <vector>

#include "egraph/enode.h"

namespace saturate::egraph {

// One equivalence class of e-nodes and its analysis data.
template <Operator Op, typename Data>
struct EClass {
  EClassId id;
  // Canonical, sorted and free of duplicates after EGraph::rebuild (sorted by label first, so
  // nodes with one label are contiguous).
  std::vector<ENode<Op>> nodes;
  Data data;
  // Ids of the e-nodes that have this class as a child. A node id is the id of the class its add
  // created (see EGraph); rebuild re-canonicalizes these nodes when this class is merged away.
  std::vector<std::uint32_t> parents;

  std::size_t size() const { return nodes.size(); }
};

}  // namespace saturate::egraph
