// Bytes -> pm::read_pmb (which applies the module checks as it reads), then check_module on the
// loaded module: a module the reader accepts must pass the C++-side checks too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pm/format_reader.h"
#include "pm/module_check.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  saturate::pm::Module module;
  try {
    module = saturate::pm::read_pmb(bytes);
  } catch (const saturate::Error&) {
    return 0;  // a rejected input: expected
  }
  // The reader promises the same checks as check_module; a PatternError here is a finding.
  saturate::pm::check_module(module);
  return 0;
}
