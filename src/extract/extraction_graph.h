#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace saturate::extract {

// Dense indices into ExtractionGraph::class_nodes and ExtractionGraph::nodes.
using ClassIndex = std::size_t;
using NodeIndex = std::size_t;

// "No node chosen" in a per-class choice vector.
inline constexpr NodeIndex kNoNode = std::numeric_limits<NodeIndex>::max();

// An e-graph reduced to what extraction needs: classes, nodes, child classes and costs, all by
// dense index. It is independent of the e-graph engine so extractors can be tested on
// hand-written and serialized e-graphs; the tensor layer converts its e-graph into one.
//
//   ExtractionGraph graph;
//   ClassIndex x = graph.add_class("x");
//   ClassIndex sum = graph.add_class("sum");
//   graph.add_node(x, "x", {}, 1.0);
//   graph.add_node(sum, "+", {x, x}, 2.0);
//   graph.roots.push_back(sum);
//   graph.validate("example");  // throws saturate::Error when inconsistent
struct ExtractionGraph {
  struct Node {
    std::string op;                    // a label for people; extractors never read it
    std::vector<ClassIndex> children;  // child classes in argument order; repeats allowed
    ClassIndex eclass = 0;
    double cost = 0;  // finite and >= 0
    std::string id;   // the node's name in egraph-serialize JSON
  };

  std::vector<Node> nodes;
  std::vector<std::vector<NodeIndex>> class_nodes;  // per class, its nodes
  std::vector<std::string> class_ids;               // per class, its name
  std::vector<ClassIndex> roots;                    // the classes the extracted term must cover
  // Per node: true when the cycle filter put it on its filter list. Extractors never choose a
  // filtered node (the ILP fixes its x to 0). Kept node-sized by add_node.
  std::vector<bool> filtered;

  std::size_t class_count() const { return class_nodes.size(); }
  std::size_t node_count() const { return nodes.size(); }
  bool is_filtered(NodeIndex node) const { return node < filtered.size() && filtered[node]; }

  ClassIndex add_class(std::string id);
  // Adds a node to an existing class; children must name classes that exist when validate()
  // runs (they may be added later). Returns the new node's index.
  NodeIndex add_node(ClassIndex eclass, std::string op, std::vector<ClassIndex> children,
                     double cost, std::string id = {});

  // Checks the invariants extractors rely on and throws saturate::Error naming `source` and the
  // first violation: at least one node and one root, every index in range, class_nodes and
  // Node::eclass agreeing, costs finite and non-negative, every root class non-empty.
  void validate(const std::string& source) const;
};

}  // namespace saturate::extract
