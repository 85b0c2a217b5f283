#include "onnx/node_attributes.h"

namespace saturate::onnx {

std::string describe(const ::onnx::NodeProto& node) {
  std::string name = !node.name().empty()     ? node.name()
                     : node.output_size() > 0 ? node.output(0)
                                              : std::string("?");
  return "node " + name + ", op " + node.op_type();
}

const ::onnx::AttributeProto* find_attr(const ::onnx::NodeProto& node, const std::string& name) {
  for (const auto& attr : node.attribute()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

int64_t attr_int(const ::onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* attr = find_attr(node, name);
  return attr != nullptr ? attr->i() : fallback;
}

float attr_float(const ::onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* attr = find_attr(node, name);
  return attr != nullptr ? attr->f() : fallback;
}

std::string attr_string(const ::onnx::NodeProto& node, const std::string& name,
                        std::string fallback) {
  const auto* attr = find_attr(node, name);
  return attr != nullptr ? attr->s() : fallback;
}

std::optional<std::vector<int64_t>> attr_ints(const ::onnx::NodeProto& node,
                                              const std::string& name) {
  const auto* attr = find_attr(node, name);
  if (attr == nullptr) return std::nullopt;
  return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
}

std::vector<const ::onnx::GraphProto*> subgraphs_of(const ::onnx::NodeProto& node) {
  std::vector<const ::onnx::GraphProto*> graphs;
  for (const auto& attr : node.attribute()) {
    if (attr.has_g()) graphs.push_back(&attr.g());
    for (const auto& g : attr.graphs()) graphs.push_back(&g);
  }
  return graphs;
}

}  // namespace saturate::onnx
