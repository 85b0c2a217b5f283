#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "ir/tensor_type.h"
#include "onnx/onnx_model.h"

namespace onnx {
class ModelProto;
}

namespace saturate::onnx {

struct ImportOptions {
  // Graph input name -> dims (`--input-shape NAME=1,128`), for inputs with dynamic dimensions.
  std::map<std::string, ir::Dims> input_shapes;
  // Where external data files (model.onnx.data) are read from; empty: beside the model file
  // for import_onnx, and nowhere for bytes (an external tensor is then an error).
  std::string external_data_dir;
  // dim_params taken equal to an expression of others (applied before anything reads the
  // model): what the model's declared outputs relate, found by a first import
  // (OnnxModel::related_dims), e.g. total_sequence_length -> past_sequence_length +
  // sequence_length.
  std::map<std::string, std::string> related_dims;
  // The largest tensor import-time constant folding may produce (elements).
  int64_t fold_element_limit = int64_t{1} << 26;
};

// Parses "NAME=1,128" into (NAME, [1, 128]); throws saturate::Error on anything else.
std::pair<std::string, ir::Dims> parse_input_shape(const std::string& text);

// Reads an ONNX model (default-domain opset 11..21, values of any element type) into the IR.
// Dynamic dimensions become symbols (one per dim_param; docs/DYNAMIC_SHAPES.md) unless
// `input_shapes` pins them. First every subgraph whose value is known from initializers,
// constants and shapes is folded into initializers or symbolic shape values (shape arithmetic,
// masks); then float32 operators the IR has are mapped (docs/ONNX.md has the table) and any
// other operator, a known one with attributes the IR cannot express, or a value of another
// element type becomes a typed `opaque` node that export restores exactly. Throws
// saturate::Error with a one-line message naming the file and the value, node or operator at
// fault (unreadable or invalid protobuf, unsupported opset, contradictory sizes, unknown value
// names, a fold that rejects its constants).
OnnxModel import_onnx(const std::string& path, const ImportOptions& options = {});
// The same from bytes already in memory; `source` names them in messages.
OnnxModel import_onnx_bytes(std::string_view bytes, const std::string& source,
                            const ImportOptions& options = {});
// The same from a parsed model (its data may be large: it is moved, not copied).
OnnxModel import_onnx_model(::onnx::ModelProto model, const std::string& source,
                            const ImportOptions& options = {});

}  // namespace saturate::onnx
