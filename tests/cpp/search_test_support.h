// Shared by the search tests: the shipped rule library, loaded as the CLI does.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "eqsat/rule_file.h"
#include "source_dir.h"

namespace saturate::search::testing_support {

inline eqsat::RuleSet library_rules() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(saturate::tests::source_dir() / "rules")) {
    if (entry.path().extension() == ".rules") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  eqsat::RuleSet set;
  for (const std::string& file : files) set.append(eqsat::load_rules(file));
  return set;
}

}  // namespace saturate::search::testing_support
