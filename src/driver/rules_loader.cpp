#include "driver/rules_loader.h"

#include <algorithm>
#include <filesystem>

#include "driver/name_checks.h"
#include "support/error.h"
#include "support/shipped_files.h"

namespace saturate::driver {

eqsat::RuleSet load_rule_sets(const std::vector<std::string>& rule_files,
                              const std::vector<std::string>& tensat_multi_files) {
  eqsat::RuleSet set;
  std::vector<std::string> files = rule_files;
  if (files.empty() && tensat_multi_files.empty()) {
    std::string dir = shipped_rules_dir();
    if (!std::filesystem::is_directory(dir)) {
      throw Error("the rule library '" + dir + "' is not a folder (set SATURATE_RULES_DIR)");
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".rules") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw Error("no .rules files in '" + dir + "'");
  }
  for (const std::string& file : files) set.append(eqsat::load_rules(file));
  for (const std::string& file : tensat_multi_files) {
    set.append(eqsat::load_rules(file, eqsat::RuleFileFormat::TensatMulti));
  }
  check_rule_names(set);
  return set;
}

}  // namespace saturate::driver
