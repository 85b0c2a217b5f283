// `saturate rules`: the rewrite rules optimize applies, each checked numerically as the test
// suite checks them (eqsat/rule_checker.h), with what it does to rounding: whether its sides
// give identical values in float32, and how far apart they are in float16. A user writing a
// rule file runs it on that file; a user of a float16 model reads which rules are
// precision-sensitive.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/text_table.h"
#include "cli/verification.h"
#include "driver/json_output.h"
#include "driver/rules_loader.h"
#include "eqsat/rule_checker.h"

namespace saturate::cli {
namespace {

struct RulesOptions {
  std::vector<std::string> rule_files;
  std::vector<std::string> tensat_multi_files;
  bool json = false;
};

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", value);
  return text;
}

std::string rounding_text(const eqsat::RuleCheckReport& report) {
  if (!report.sound()) return "-";
  return report.exact_in_float32 ? "exact" : "differs " + scientific(report.float32_error);
}

std::string float16_text(const eqsat::RuleCheckReport& report) {
  if (!report.sound()) return "-";
  if (!report.float16_error) return "n/a";
  return *report.float16_error == 0 ? "0" : scientific(*report.float16_error);
}

nlohmann::ordered_json to_json(const eqsat::RuleCheckReport& report, const std::string& kind,
                               const SourceLocation& location) {
  nlohmann::ordered_json entry = {{"name", report.rule},
                                  {"kind", kind},
                                  {"location", location.to_string()},
                                  {"sound", report.sound()},
                                  {"cases_checked", report.cases_checked},
                                  {"max_error_float64", report.max_error}};
  if (!report.sound()) {
    entry["failure"] = report.failure;
    return entry;
  }
  entry["exact_in_float32"] = report.exact_in_float32;
  entry["float32_error"] = report.float32_error;
  entry["float16_error"] = report.float16_error ? nlohmann::ordered_json(*report.float16_error)
                                                : nlohmann::ordered_json(nullptr);
  return entry;
}

void run(const RulesOptions& options) {
  const eqsat::RuleSet set = driver::load_rule_sets(options.rule_files, options.tensat_multi_files);
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  TextTable table({"rule", "kind", "sound", "float32", "float16 error", "where"});
  size_t unsound = 0;
  size_t sensitive = 0;
  auto add = [&](const eqsat::RuleCheckReport& report, const std::string& kind,
                 const SourceLocation& location) {
    unsound += report.sound() ? 0 : 1;
    sensitive += report.sound() && report.precision_sensitive() ? 1 : 0;
    rules.push_back(to_json(report, kind, location));
    table.add_row({report.rule, kind,
                   report.sound() ? "yes (" + std::to_string(report.cases_checked) + " cases)"
                                  : "NO: " + report.failure,
                   rounding_text(report), float16_text(report), location.to_string()});
  };
  for (const eqsat::RewriteRule& rule : set.rules) {
    add(eqsat::check_rule(rule), "single", rule.location);
  }
  for (const eqsat::MultiPatternRule& rule : set.multi_rules) {
    add(eqsat::check_rule(rule), "multi",
        rule.parts.empty() ? SourceLocation{} : rule.parts.front().location);
  }
  const size_t total = set.rules.size() + set.multi_rules.size();
  if (options.json) {
    nlohmann::ordered_json report = {{"rules", rules},
                                     {"count", total},
                                     {"unsound", unsound},
                                     {"precision_sensitive", sensitive}};
    std::printf("%s", driver::dump_json(report).c_str());
  } else {
    std::printf("%s", table.render().c_str());
    std::printf(
        "%zu rules: %zu unsound; %zu precision-sensitive (their sides differ in float32: they "
        "regroup arithmetic, which changes rounding; in float16 by the error shown, relative)\n",
        total, unsound, sensitive);
  }
  if (unsound > 0) {
    throw VerificationFailed(std::to_string(unsound) + " of " + std::to_string(total) +
                             " rules are not sound (their two sides differ or do not type-check)");
  }
}

}  // namespace

void register_rules_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "rules",
      "Check every rewrite rule numerically and show which are precision-sensitive (their sides "
      "differ in float32; the error in float16)");
  auto options = std::make_shared<RulesOptions>();
  command->add_option("--rules", options->rule_files,
                      "Rule file (repeatable; default: the shipped library in rules/)");
  command->add_option("--tensat-multi", options->tensat_multi_files,
                      "TENSAT multi-pattern rule file (repeatable)");
  command->add_flag("--json", options->json, "Print a JSON report instead of a table");
  command->footer(
      "Each rule runs on random inputs of several valid shapes in the reference interpreter: in "
      "float64 (both sides must agree: sound), in float32 (identical values: exact; else "
      "precision-sensitive) and with float16 tensors (the relative error of the sides). Exit "
      "status 3 when a rule is not sound.");
  command->callback([options] { run(*options); });
}

}  // namespace saturate::cli
