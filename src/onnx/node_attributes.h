#pragma once

// Reading an ONNX node's attributes, for import and for import-time folding.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace saturate::onnx {

// "node NAME, op TYPE" for messages (the first output names a node without a name).
std::string describe(const ::onnx::NodeProto& node);

const ::onnx::AttributeProto* find_attr(const ::onnx::NodeProto& node, const std::string& name);
int64_t attr_int(const ::onnx::NodeProto& node, const std::string& name, int64_t fallback);
float attr_float(const ::onnx::NodeProto& node, const std::string& name, float fallback);
std::string attr_string(const ::onnx::NodeProto& node, const std::string& name,
                        std::string fallback);
std::optional<std::vector<int64_t>> attr_ints(const ::onnx::NodeProto& node,
                                              const std::string& name);

// The subgraphs a node's attributes hold (If's branches, Loop's and Scan's bodies).
std::vector<const ::onnx::GraphProto*> subgraphs_of(const ::onnx::NodeProto& node);

inline bool is_default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

}  // namespace saturate::onnx
