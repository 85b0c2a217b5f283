#pragma once

// Names from user files (rule names in .rules and .pmb files) end up in JSON reports, which
// must be UTF-8: a name that is not is rejected when the file is loaded, not after the whole
// optimization ran.
#include <string>
#include <string_view>

#include "eqsat/rule_file.h"
#include "pm/core.h"

namespace saturate::driver {

// Throw saturate::Error naming the file (and line) of a rule whose name is not UTF-8.
void check_rule_names(const eqsat::RuleSet& rules);
void check_rule_names(const pm::Module& module, const std::string& path);

}  // namespace saturate::driver
