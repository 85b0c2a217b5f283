#include "onnx/opaque_capsule.h"

#include <set>

#include "onnx/base64.h"
#include "onnx/node_attributes.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

void collect_free(const ::onnx::GraphProto& graph, std::vector<std::string>& free,
                  std::set<std::string>& seen);

// Names `node`'s subgraphs read that `defined` does not hold.
void collect_node_free(const ::onnx::NodeProto& node, const std::set<std::string>& defined,
                       std::vector<std::string>& free, std::set<std::string>& seen) {
  for (const auto* g : subgraphs_of(node)) {
    std::vector<std::string> inner;
    std::set<std::string> inner_seen;
    collect_free(*g, inner, inner_seen);
    for (const auto& name : inner) {
      if (!defined.contains(name) && seen.insert(name).second) free.push_back(name);
    }
  }
}

void collect_free(const ::onnx::GraphProto& graph, std::vector<std::string>& free,
                  std::set<std::string>& seen) {
  std::set<std::string> defined;
  for (const auto& info : graph.input()) defined.insert(info.name());
  for (const auto& tensor : graph.initializer()) defined.insert(tensor.name());
  for (const auto& node : graph.node()) {
    for (const auto& name : node.output()) defined.insert(name);
  }
  for (const auto& node : graph.node()) {
    for (const auto& name : node.input()) {
      if (!name.empty() && !defined.contains(name) && seen.insert(name).second) {
        free.push_back(name);
      }
    }
    collect_node_free(node, defined, free, seen);
  }
  for (const auto& info : graph.output()) {
    if (!defined.contains(info.name()) && seen.insert(info.name()).second) {
      free.push_back(info.name());
    }
  }
}

}  // namespace

std::vector<std::string> outer_references(const ::onnx::NodeProto& node) {
  std::vector<std::string> free;
  std::set<std::string> seen;
  collect_node_free(node, {}, free, seen);
  return free;
}

std::string encode_capsule(const OpaqueCapsule& capsule) {
  ::onnx::GraphProto holder;
  *holder.add_node() = capsule.node;
  for (const auto& constant : capsule.constants) *holder.add_initializer() = constant;
  for (const auto& name : capsule.implicit_inputs) holder.add_input()->set_name(name);
  std::string bytes;
  if (!holder.SerializeToString(&bytes)) throw Error("cannot serialize an opaque node");
  return base64_encode(bytes);
}

OpaqueCapsule decode_capsule(const std::string& text, const std::string& node_name) {
  OpaqueCapsule capsule;
  if (text.empty()) {
    // Written by hand (text form): no attributes, every input and output is an IR value.
    return capsule;
  }
  auto bytes = base64_decode(text);
  ::onnx::GraphProto holder;
  if (!bytes || !holder.ParseFromString(*bytes) || holder.node_size() != 1) {
    throw Error("opaque node '" + node_name +
                "': onnx_attributes is not base64 of a serialized ONNX node");
  }
  capsule.node = holder.node(0);
  capsule.constants.assign(holder.initializer().begin(), holder.initializer().end());
  for (const auto& info : holder.input()) capsule.implicit_inputs.push_back(info.name());
  return capsule;
}

}  // namespace saturate::onnx
