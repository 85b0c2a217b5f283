#pragma once

#include <cstdint>
#include <vector>

#include "egraph/enode.h"

namespace saturate::egraph {

// Generations (EGraph::generation) that say how old an e-node is, for incremental e-matching:
//   form    since when a node with these label and children has existed (in this class or in one
//           merged into it since); a new node, or a child merged away, renews it;
//   placed  since when the node has been in the class with this id; merging its class away
//           renews it too (placed >= form).
// A match whose root node's form and other nodes' places are all at most g existed, rooted in a
// class merged into the same one since, when the e-graph was at generation g.
struct NodeStamp {
  std::uint32_t form = 0;
  std::uint32_t placed = 0;
};

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
  // parents[0, sorted_parents) is sorted and free of duplicates (as the last rebuild left it).
  std::size_t sorted_parents = 0;
  // stamps[i]: when nodes[i] took its present form and place (see NodeStamp).
  std::vector<NodeStamp> stamps;
  // The largest of the stamps, so incremental e-matching can pass over a class with nothing new.
  NodeStamp newest;

  std::size_t size() const { return nodes.size(); }
};

}  // namespace saturate::egraph
