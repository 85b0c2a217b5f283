#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "extract/extraction_graph.h"

namespace saturate::extract {

// A cycle through chosen nodes, as the classes along it: the chosen node of classes[i] has
// classes[(i + 1) % size] among its children. A self loop is a cycle of one class.
using ClassCycle = std::vector<ClassIndex>;

// Cycles among the chosen nodes reachable from the roots, found by one depth-first search (one
// per back edge, so not every cycle, but none when there is none). Stops after max_cycles.
std::vector<ClassCycle> find_choice_cycles(
    const ExtractionGraph& graph, const std::vector<NodeIndex>& choice,
    std::size_t max_cycles = std::numeric_limits<std::size_t>::max());

bool choice_is_acyclic(const ExtractionGraph& graph, const std::vector<NodeIndex>& choice);

// An edge of a class graph with a non-negative weight.
struct WeightedEdge {
  ClassIndex to;
  double weight;
};

// Separation of cycle cuts: for each class s with threshold[s] > 0, highest threshold first, the
// lightest simple cycle through s, when its total weight is below threshold[s]. Each cycle is
// returned once, starting at its s. Stops after max_cycles.
std::vector<ClassCycle> find_light_cycles(const std::vector<std::vector<WeightedEdge>>& edges,
                                          const std::vector<double>& threshold,
                                          std::size_t max_cycles);

// Every simple cycle of at most max_length classes in the graph given by successor lists, each
// once, starting at its smallest class. Stops after max_cycles cycles or max_steps edges
// followed (the search is exponential in max_length on dense graphs).
std::vector<ClassCycle> enumerate_short_cycles(
    const std::vector<std::vector<ClassIndex>>& successors, std::size_t max_length,
    std::size_t max_cycles, std::size_t max_steps = 20'000'000);

// Strongly connected components of the class graph in which class c has an edge to class d when
// some node of c accepted by `use_node` has d as a child. Returns the component number per
// class; two classes can be on one cycle only if their numbers are equal. Components are
// numbered in reverse topological order (a component's children come first).
template <typename NodePredicate>
std::vector<std::size_t> class_components(const ExtractionGraph& graph, NodePredicate use_node);

// Sizes of the components returned by class_components (component number -> class count).
std::vector<std::size_t> component_sizes(const std::vector<std::size_t>& component);

// Implementation detail of class_components: the same over explicit successor lists.
std::vector<std::size_t> strongly_connected_components(
    const std::vector<std::vector<ClassIndex>>& successors);

template <typename NodePredicate>
std::vector<std::size_t> class_components(const ExtractionGraph& graph, NodePredicate use_node) {
  std::vector<std::vector<ClassIndex>> successors(graph.class_count());
  for (NodeIndex n = 0; n < graph.node_count(); ++n) {
    if (!use_node(n)) continue;
    const auto& node = graph.nodes[n];
    for (ClassIndex child : node.children) successors[node.eclass].push_back(child);
  }
  return strongly_connected_components(successors);
}

}  // namespace saturate::extract
