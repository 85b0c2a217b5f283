// Bytes -> onnx::import_onnx_bytes with a small folding limit (so that a tiny input cannot ask
// for gigabytes of folded constants).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnx/onnx_import.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  saturate::onnx::ImportOptions options;
  options.fold_element_limit = int64_t{1} << 16;
  try {
    saturate::onnx::import_onnx_bytes(bytes, "fuzz.onnx", options);
  } catch (const saturate::Error&) {
    // a rejected input: expected
  }
  return 0;
}
