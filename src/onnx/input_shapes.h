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

// Replaces every dim_param of the model's stated types (inputs, outputs, value_info) that
// `sizes` names, or that is an expression of names it binds, by its size.
void bind_dim_params(::onnx::ModelProto& model, const std::map<std::string, int64_t>& sizes);

// Replaces each dim_param that `related` names by its expression (total_sequence_length ->
// "past_sequence_length + sequence_length") wherever the model states types.
void relate_dim_params(::onnx::ModelProto& model,
                       const std::map<std::string, std::string>& related);

// Gives every graph input dimension that has neither a value nor a name a dim_param of its own
// (`INPUT_dimK`, made unique), so that folding and import see one symbol for it.
void name_dynamic_input_dims(::onnx::ModelProto& model);

// Clears every dim_param of the model's value_info that names a symbol the graph's inputs and
// outputs do not declare (`unk__4`, which ONNX's shape inference invents where it loses track,
// and which tools that ran it before, ONNX Runtime's float16 converter among them, leave in the
// file): such a name is no size the model states, and import would take it for a new symbol
// unrelated to `batch`, where its own inference relates the two. A dim_param that is an
// expression of declared names is kept. The dimension stays, unknown.
void forget_undeclared_dim_names(::onnx::ModelProto& model);

}  // namespace saturate::onnx
