// Graph text (.sxp) -> ir::parse_text, then write_text and parse again: a graph the parser
// accepts must print, and its printed form must parse back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/text_format.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  saturate::ir::Graph graph;
  try {
    graph = saturate::ir::parse_text(text, "fuzz.sxp");
  } catch (const saturate::Error&) {
    return 0;  // a rejected input: expected
  }
  // An accepted graph must round-trip; a failure here is a finding, so nothing is caught.
  const std::string written = saturate::ir::write_text(graph);
  const std::string rewritten = saturate::ir::write_text(saturate::ir::parse_text(written));
  if (written != rewritten) std::abort();
  return 0;
}
