#pragma once

// Shape arithmetic over symbolic dimensions at import (internal to the onnx part). Exporters
// compute Reshape targets, Expand shapes and masks from `Shape` of a dynamic input; with the
// input's dims symbolic (ir/symbolic_dim.h) those computations fold into int64 tensors whose
// elements are symbolic dims. Such a tensor is never written into the model (its elements are
// handles, not sizes): the folder keeps it beside the model, the node that computes it stays,
// and the importer reads it where a static model would read a constant.
#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx/host_tensor.h"

namespace saturate::onnx {

// The IR dim of an ONNX dimension: its value, the symbol its dim_param names (an expression
// such as `past_sequence_length + sequence_length` is read as one; a name that contains
// "past" is a cache length, whose lower bound is 0), or nullopt when it is neither (ONNX
// inference's unk__N names count as neither: they name nothing across runs).
std::optional<int64_t> dim_from_onnx(const ::onnx::TensorShapeProto_Dimension& dim);
// Every dimension of a typed value, or nullopt when one is unknown or the rank is.
std::optional<ir::Dims> dims_from_onnx(const ::onnx::TypeProto& type);
// A symbol name made from a value name (`/model/Flatten_output_0` -> `model_Flatten_output_0`):
// what the text forms read back as one name.
std::string symbol_base(std::string_view name);
// Writes `dim` into an ONNX dimension (a value, or the dim_param naming its expression).
void set_onnx_dim(int64_t dim, ::onnx::TensorShapeProto_Dimension& out);

// Whether any element of an integer tensor is a symbolic dim.
bool holds_symbolic(const HostTensor& tensor);

// Evaluates `node` when at least one input holds symbolic dims: operators that move elements
// (Gather, Concat, Unsqueeze, Squeeze, Reshape, Identity, Slice, Flatten, Cast to int64, Where)
// where the symbolic tensor is the moved data, and dim arithmetic (Add, Sub, Mul, exact Div,
// Max/Min and Equal where decided for every value of the symbols). nullopt otherwise: the node
// stays unfolded and its outputs unknown.
std::optional<std::vector<HostTensor>> fold_symbolic(const ::onnx::NodeProto& node,
                                                     const std::vector<const HostTensor*>& inputs,
                                                     int64_t opset);

// The output dims of a node whose output ONNX's inference leaves unknown over symbolic dims:
// Reshape (0 and -1 resolved against the input's dims), Expand, ConstantOfShape, Range from a
// start by 1, Slice, Flatten, Concat, and elementwise broadcasting of equal dims. `inputs` are
// the known values of the node's inputs (constants and symbolic values; nullptr where unknown),
// `input_dims` their dims where known. A Slice of a table to a symbolic length records the
// assumption that the length fits the table (ir::assume_at_most). nullopt when undecided.
std::optional<ir::Dims> symbolic_output_dims(
    const ::onnx::NodeProto& node, const std::vector<const HostTensor*>& inputs,
    const std::vector<std::optional<ir::Dims>>& input_dims);

}  // namespace saturate::onnx
