#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace saturate::onnx {

// Standard base64 (RFC 4648, with '=' padding): how an opaque node keeps its serialized ONNX
// attributes in a text-safe IR string attribute.
std::string base64_encode(std::string_view bytes);
// nullopt when the text is not valid base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace saturate::onnx
