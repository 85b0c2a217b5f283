#include "ir/dot_writer.h"

#include "ir/attribute_text.h"
#include "ir/op_registry.h"
#include "support/strings.h"

namespace saturate::ir {
namespace {

std::string escape(std::string_view text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string attribute_summary(const Node& node) {
  const OpInfo& info = op_info(node.op);
  std::string summary;
  for (const AttrSpec& spec : info.attributes) {
    const AttrValue* value = node.attrs.find(spec.name);
    if (value == nullptr || (spec.default_value && *spec.default_value == *value)) continue;
    if (spec.name == "shape" && info.is_leaf()) continue;  // shown on the edges
    std::string text = write_attribute(*value, spec.kind);
    summary += "\\n" + spec.name + "=" + escape(text);
  }
  return summary;
}

}  // namespace

std::string write_dot(const Graph& graph) {
  std::string dot = "digraph \"" + escape(graph.name()) + "\" {\n";
  dot += "  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  dot += "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    std::string style;
    if (node.op == OpKind::Input) {
      style = ", shape=ellipse";
    } else if (node.op == OpKind::Weight || node.op == OpKind::Constant) {
      style = ", shape=ellipse, style=filled, fillcolor=\"#e8e8e8\"";
    }
    std::string label = escape(node.name()) + "\\n" + std::string(to_string(node.op));
    if (op_info(node.op).is_leaf()) label = escape(node.name());
    dot += "  n" + std::to_string(id) + " [label=\"" + label + attribute_summary(node) + "\"" +
           style + "];\n";
    for (const ValueRef& input : node.inputs) {
      dot += "  n" + std::to_string(input.node) + " -> n" + std::to_string(id) + " [label=\"" +
             to_string(graph.type(input).dims) + "\"];\n";
    }
  }
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const GraphOutput& output = graph.outputs()[k];
    dot += "  out" + std::to_string(k) + " [label=\"" + escape(output.name) +
           "\", shape=doubleoctagon];\n";
    dot += "  n" + std::to_string(output.value.node) + " -> out" + std::to_string(k) +
           " [label=\"" + to_string(graph.type(output.value).dims) + "\"];\n";
  }
  dot += "}\n";
  return dot;
}

}  // namespace saturate::ir
