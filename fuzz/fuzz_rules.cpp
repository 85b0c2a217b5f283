// Rule-file text -> eqsat::parse_rules in both formats, then RuleCompiler::compile on what
// parses (building the e-graph rewrites, without running them). The numeric rule checker is
// left out: it draws thousands of random cases per rule, far too slow for a fuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "eqsat/rule_compiler.h"
#include "eqsat/rule_file.h"
#include "support/error.h"

namespace {

void parse_and_compile(std::string_view text, saturate::eqsat::RuleFileFormat format) {
  saturate::eqsat::RuleSet rules;
  try {
    rules = saturate::eqsat::parse_rules(text, "fuzz.rules", format);
  } catch (const saturate::Error&) {
    return;  // a rejected input: expected
  }
  try {
    saturate::eqsat::RuleCompiler compiler(nullptr);
    compiler.compile(rules);
  } catch (const saturate::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  parse_and_compile(text, saturate::eqsat::RuleFileFormat::Saturate);
  parse_and_compile(text, saturate::eqsat::RuleFileFormat::TensatMulti);
  return 0;
}
