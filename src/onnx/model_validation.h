#pragma once

// Checks of an ONNX model read from outside, before anything computes on it: ONNX's own shape
// inference divides by strides and multiplies dims unchecked (a Conv with strides [0 0] kills the
// process with SIGFPE), and the importer's arithmetic on sizes must not overflow. Every failure
// is one saturate::Error naming the node, the attribute and the value.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor_type.h"

namespace saturate::onnx {

// The newest IR version import reads: ONNX 1.23's (onnx.helper.make_model writes it by default,
// whatever the opset). IR versions only add fields and element types; what a model means is set
// by its opsets, which import checks separately.
inline constexpr int64_t kMaxIrVersion = 14;

// What needs no inferred types: the IR version, unique value names, initializer and graph-input
// shapes, and the integer attributes ONNX's shape inference divides by or takes as sizes (of
// every node, subgraphs included). Run it before the first call to onnx::shape_inference.
// Errors are prefixed with `source`.
void validate_model(const ::onnx::ModelProto& model, const std::string& source);

// What the importer knows of a node's inputs: the static dims of a typed value, and the values of
// a small integer constant.
struct KnownValues {
  std::function<std::optional<ir::Dims>(const std::string&)> dims;
  std::function<std::optional<std::vector<int64_t>>(const std::string&)> ints;
};

// The checks that need the inputs' shapes (channels and group of a Conv, BatchNormalization's
// parameter lengths, axes against the rank, Gather indices against the axis, Reshape targets),
// for a default-domain node. Errors name the node (describe()).
void validate_node_shapes(const ::onnx::NodeProto& node, const KnownValues& known);

}  // namespace saturate::onnx
