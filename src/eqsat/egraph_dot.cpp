#include "eqsat/egraph_dot.h"

#include <unordered_map>
#include <vector>

#include "ir/attribute_text.h"

namespace saturate::eqsat {
namespace {

std::string escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string class_label(const TensorData& data) {
  switch (data.kind) {
    case TensorData::Kind::Tensor:
      return ir::to_string(data.info.type) + (data.known ? " (weights)" : "");
    case TensorData::Kind::Tuple:
      return "split parts";
    case TensorData::Kind::Attribute:
      return "attribute";
    case TensorData::Kind::Invalid:
      return "invalid: " + data.error;
  }
  return "?";
}

}  // namespace

std::string write_egraph_dot(const TensorEGraph& egraph, EClassId root) {
  std::unordered_map<uint32_t, size_t> index;  // class id -> cluster number
  std::vector<EClassId> order;
  auto visit = [&](EClassId id) {
    id = egraph.find(id);
    if (index.emplace(id.value(), order.size()).second) order.push_back(id);
  };
  visit(root);
  std::string dot = "digraph egraph {\n  compound=true;\n  rankdir=TB;\n";
  dot += "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  std::string edges;
  for (size_t next = 0; next < order.size(); ++next) {
    EClassId id = order[next];
    const auto& eclass = egraph.eclass(id);
    std::string cluster = "cluster_" + std::to_string(id.value());
    dot += "  subgraph " + cluster + " {\n    style=rounded; color=\"#888888\";\n";
    dot += "    label=\"e" + std::to_string(id.value()) + " " + escape(class_label(eclass.data)) +
           "\";\n";
    for (size_t n = 0; n < eclass.nodes.size(); ++n) {
      const TensorNode& node = eclass.nodes[n];
      std::string name = "n" + std::to_string(id.value()) + "_" + std::to_string(n);
      std::string label = node.op.to_string();
      std::vector<EClassId> tensor_children;
      for (EClassId child : node.children) {
        const TensorData& data = egraph.data(child);
        if (data.kind == TensorData::Kind::Attribute) {
          label += " " + egraph.eclass(child).nodes.front().op.to_string();
        } else {
          tensor_children.push_back(egraph.find(child));
        }
      }
      std::string style = egraph.is_visible(id, node) ? "" : ", style=dashed";
      dot += "    " + name + " [label=\"" + escape(label) + "\"" + style + "];\n";
      for (EClassId child : tensor_children) {
        visit(child);
        // Point at the child's first node, clipped at its cluster's border.
        edges += "  " + name + " -> n" + std::to_string(child.value()) + "_0 [lhead=cluster_" +
                 std::to_string(child.value()) + "];\n";
      }
    }
    dot += "  }\n";
  }
  return dot + edges + "}\n";
}

}  // namespace saturate::eqsat
