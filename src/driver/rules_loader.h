#pragma once

#include <string>
#include <vector>

#include "eqsat/rule_file.h"

namespace saturate::driver {

// Rule files named by the user (Saturate's format or TENSAT's single-pattern files) and TENSAT
// multi-pattern files; when both lists are empty, the shipped library: every .rules file in
// shipped_rules_dir() ($SATURATE_RULES_DIR, the install prefix's, else the source tree's rules/).
eqsat::RuleSet load_rule_sets(const std::vector<std::string>& rule_files,
                              const std::vector<std::string>& tensat_multi_files);

}  // namespace saturate::driver
