#include "extract/extraction_graph.h"

#include <cmath>
#include <utility>

#include "support/error.h"

namespace saturate::extract {

ClassIndex ExtractionGraph::add_class(std::string id) {
  class_nodes.emplace_back();
  class_ids.push_back(std::move(id));
  return class_nodes.size() - 1;
}

NodeIndex ExtractionGraph::add_node(ClassIndex eclass, std::string op,
                                    std::vector<ClassIndex> children, double cost, std::string id) {
  if (eclass >= class_nodes.size()) {
    throw Error("add_node: class index " + std::to_string(eclass) + " does not exist (" +
                std::to_string(class_nodes.size()) + " classes)");
  }
  const NodeIndex index = nodes.size();
  if (id.empty()) id = "n" + std::to_string(index);
  nodes.push_back(Node{std::move(op), std::move(children), eclass, cost, std::move(id)});
  class_nodes[eclass].push_back(index);
  filtered.resize(nodes.size(), false);
  return index;
}

void ExtractionGraph::validate(const std::string& source) const {
  auto fail = [&](const std::string& what) { throw Error(source + ": " + what); };
  if (nodes.empty()) fail("the e-graph has no nodes");
  if (roots.empty()) fail("the e-graph has no root classes");
  if (class_ids.size() != class_nodes.size()) {
    fail("class_ids has " + std::to_string(class_ids.size()) + " entries for " +
         std::to_string(class_nodes.size()) + " classes");
  }
  if (!filtered.empty() && filtered.size() != nodes.size()) {
    fail("filtered has " + std::to_string(filtered.size()) + " entries for " +
         std::to_string(nodes.size()) + " nodes");
  }
  for (NodeIndex n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    const std::string name = "node '" + node.id + "'";
    if (node.eclass >= class_nodes.size()) fail(name + " has a class index out of range");
    if (!std::isfinite(node.cost) || node.cost < 0) {
      fail(name + " has cost " + std::to_string(node.cost) +
           "; costs must be finite and non-negative");
    }
    for (ClassIndex child : node.children) {
      if (child >= class_nodes.size()) fail(name + " has a child class index out of range");
    }
  }
  std::vector<int> listed(nodes.size(), 0);
  for (ClassIndex c = 0; c < class_nodes.size(); ++c) {
    for (NodeIndex n : class_nodes[c]) {
      if (n >= nodes.size()) fail("class '" + class_ids[c] + "' lists a node index out of range");
      if (nodes[n].eclass != c) {
        fail("class '" + class_ids[c] + "' lists node '" + nodes[n].id +
             "', which names another class");
      }
      ++listed[n];
    }
  }
  for (NodeIndex n = 0; n < nodes.size(); ++n) {
    if (listed[n] != 1) {
      fail("node '" + nodes[n].id + "' is listed " + std::to_string(listed[n]) +
           " times by its class (must be once)");
    }
  }
  for (ClassIndex root : roots) {
    if (root >= class_nodes.size()) fail("a root class index is out of range");
    if (class_nodes[root].empty()) fail("root class '" + class_ids[root] + "' has no nodes");
  }
}

}  // namespace saturate::extract
