#pragma once

#include <string>
#include <string_view>

#include "onnx/onnx_model.h"

namespace saturate::onnx {

// Reads an ONNX model (default-domain opset 11..21, float32 values, static shapes) into the IR.
// Operators the IR has are mapped (docs/ONNX.md has the table); any other operator, or a known
// one with attributes the IR cannot express, becomes an `opaque` node that export restores
// exactly. Throws saturate::Error with a one-line message naming the file and the value, node or
// operator at fault (unreadable or invalid protobuf, unsupported opset, dynamic dimensions,
// unknown value names, non-float tensors).
OnnxModel import_onnx(const std::string& path);
// The same from bytes already in memory; `source` names them in messages.
OnnxModel import_onnx_bytes(std::string_view bytes, const std::string& source);

}  // namespace saturate::onnx
