#pragma once

// What an opaque IR node keeps of the ONNX node it stands for, besides op_type and domain
// (internal to the onnx part). Stored in the node's `onnx_attributes` string attribute as base64
// of a serialized GraphProto holding one node and the node's embedded constants.
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace saturate::onnx {

inline constexpr const char* kIrValueMarker = "#";
inline constexpr const char* kUnusedOutputMarker = "~";

struct OpaqueCapsule {
  // The ONNX attributes. Inputs: "" an omitted optional input, "#" the next IR input, any other
  // name one of `constants` (non-float constants such as Slice starts or Resize sizes, which the
  // IR has no values for). Outputs: "" an omitted optional output, "#" the next IR output, "~" an
  // output nobody read (written back under a fresh name).
  ::onnx::NodeProto node;
  std::vector<::onnx::TensorProto> constants;
  // Outer-scope values the node's subgraphs read by name (If, Loop, Scan): each is the IR input
  // after the node's own, and export makes it visible under this name again.
  std::vector<std::string> implicit_inputs;
};

// The values a node's subgraph attributes (recursively) read from the enclosing scope: names
// used inside and defined nowhere inside. Empty for a node without subgraphs.
std::vector<std::string> outer_references(const ::onnx::NodeProto& node);

std::string encode_capsule(const OpaqueCapsule& capsule);
// Throws saturate::Error naming the node when the text is not a capsule.
OpaqueCapsule decode_capsule(const std::string& text, const std::string& node_name);

}  // namespace saturate::onnx
