#include "pm/core.h"

namespace saturate::pm {

std::optional<uint32_t> Module::find_definition(std::string_view name) const {
  for (size_t i = 0; i < definitions.size(); ++i) {
    if (definitions[i].name == name) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

std::vector<Var> Module::rule_variables(const Rule& rule) const {
  std::vector<Var> vars;
  const Definition& definition = definitions.at(rule.definition);
  for (uint32_t param : rule.params) vars.push_back(definition.param(param));
  return vars;
}

bool Module::has_rules(uint32_t definition) const {
  for (const Rule& rule : rules) {
    if (rule.definition == definition) return true;
  }
  return false;
}

}  // namespace saturate::pm
