#include "onnx/opaque_capsule.h"

#include "onnx/base64.h"
#include "support/error.h"

namespace saturate::onnx {

std::string encode_capsule(const OpaqueCapsule& capsule) {
  ::onnx::GraphProto holder;
  *holder.add_node() = capsule.node;
  for (const auto& constant : capsule.constants) *holder.add_initializer() = constant;
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
  return capsule;
}

}  // namespace saturate::onnx
