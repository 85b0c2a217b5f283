// Text -> extract::parse_egraph_json, then egraph_to_json and parse again on what is accepted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "extract/egraph_json.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  saturate::extract::ExtractionGraph graph;
  try {
    graph = saturate::extract::parse_egraph_json(text, "fuzz.json");
  } catch (const saturate::Error&) {
    return 0;  // a rejected input: expected
  }
  try {
    const std::string written = saturate::extract::egraph_to_json(graph).dump();
    saturate::extract::parse_egraph_json(written, "written.json");
  } catch (const saturate::Error&) {
    // egraph_to_json documents an Error for a child class without nodes.
  }
  return 0;
}
