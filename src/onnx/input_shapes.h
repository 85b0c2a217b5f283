#pragma once

// Static input shapes for import (internal to the onnx part): pinning dimensions the user gives
// and refusing the dynamic ones left.
#include <onnx/onnx_pb.h>

#include <map>
#include <string>

#include "ir/tensor_type.h"

namespace saturate::onnx {

// Sets the dims of the named graph inputs (`--input-shape NAME=1,128`). Throws saturate::Error,
// prefixed with `source`, for a name that is no graph input, a rank that differs from the
// model's, or a dimension that contradicts a fixed one.
void pin_input_shapes(::onnx::ModelProto& model, const std::map<std::string, ir::Dims>& shapes,
                      const std::string& source);

// Throws one saturate::Error that lists every graph input dimension still not a positive
// number, and names the flag that pins them.
void require_static_inputs(const ::onnx::ModelProto& model, const std::string& source);

}  // namespace saturate::onnx
