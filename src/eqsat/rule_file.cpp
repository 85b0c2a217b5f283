#include "eqsat/rule_file.h"

#include <map>

#include "support/strings.h"

namespace saturate::eqsat {
namespace {

[[noreturn]] void fail(const SourceLocation& where, const std::string& message) {
  throw ParseError(where, message);
}

// One line's expressions, with the line's location.
struct Line {
  std::vector<SExpr> items;
  SourceLocation location;
};

std::vector<Line> group_by_line(const std::vector<SExpr>& forms) {
  std::vector<Line> lines;
  for (const SExpr& form : forms) {
    if (lines.empty() || lines.back().location.line != form.location.line) {
      lines.push_back({{}, form.location});
    }
    lines.back().items.push_back(form);
  }
  return lines;
}

// Every variable keeps one sort (tensor or attribute of one kind) across all sides of a rule.
void check_sorts(const std::vector<const Term*>& sides) {
  std::map<std::string, const Term*> first;
  for (const Term* side : sides) {
    for (const Term* variable : variables_of(*side)) {
      auto [it, inserted] = first.emplace(variable->variable, variable);
      if (inserted) continue;
      const Term* earlier = it->second;
      if (earlier->kind != variable->kind || (variable->kind == Term::Kind::AttributeVariable &&
                                              earlier->attr_kind != variable->attr_kind)) {
        fail(variable->location, "?" + variable->variable +
                                     " is used both as a tensor and as an attribute, or as "
                                     "attributes of different kinds");
      }
    }
  }
}

bool is_bound(const std::vector<const Term*>& lhs_sides, const std::string& name) {
  for (const Term* lhs : lhs_sides) {
    for (const Term* candidate : variables_of(*lhs)) {
      if (candidate->variable == name) return true;
    }
  }
  return false;
}

void check_bound(const std::vector<const Term*>& lhs_sides, const Term& rhs) {
  for (const Term* variable : variables_of(rhs)) {
    if (!is_bound(lhs_sides, variable->variable)) {
      fail(variable->location,
           "?" + variable->variable +
               " appears on the right-hand side but no left-hand side binds it");
    }
  }
}

void check_condition_bound(const std::vector<const Term*>& lhs_sides, const Condition& condition) {
  for (const std::string& name : condition_variables(condition)) {
    if (!is_bound(lhs_sides, name)) {
      fail(condition.location, "the condition reads ?" + name + ", which no left-hand side binds");
    }
  }
}

struct ParsedLine {
  std::string name;
  bool continuation = false;  // starts with '&'
  bool both_directions = false;
  bool unordered = false;  // (unordered) among the conditions
  Term lhs;
  Term rhs;
  std::vector<Condition> conditions;
  SourceLocation location;
};

ParsedLine parse_line(const Line& line) {
  ParsedLine parsed;
  parsed.location = line.location;
  size_t i = 0;
  const auto& items = line.items;
  if (i < items.size() && items[i].is_symbol("&")) {
    parsed.continuation = true;
    ++i;
  }
  if (i < items.size() && items[i].kind == SExpr::Kind::Symbol && items[i].text.size() > 1 &&
      items[i].text.back() == ':') {
    parsed.name = items[i].text.substr(0, items[i].text.size() - 1);
    ++i;
  }
  bool has_arrow =
      items.size() - i >= 3 && (items[i + 1].is_symbol("=>") || items[i + 1].is_symbol("<=>"));
  bool has_conditions = items.size() - i > 3;
  if (!has_arrow || (has_conditions && (!items[i + 3].is_symbol("if") || items.size() - i == 4))) {
    fail(line.location, "expected a rule: [name:] LHS => RHS [if CONDITION...] (or <=>)");
  }
  parsed.both_directions = items[i + 1].is_symbol("<=>");
  parsed.lhs = parse_term(items[i]);
  // A bare variable may replace (x => ?x), but never be searched for, so not with <=>.
  parsed.rhs = parsed.both_directions ? parse_term(items[i + 2]) : parse_replacement(items[i + 2]);
  for (size_t k = i + 4; k < items.size(); ++k) {
    const SExpr& item = items[k];
    if (item.kind == SExpr::Kind::List && item.items.size() == 1 &&
        item.items[0].is_symbol("unordered")) {
      parsed.unordered = true;
      continue;
    }
    parsed.conditions.push_back(parse_condition(item));
  }
  return parsed;
}

std::string default_name(const std::string& file, const SourceLocation& location) {
  std::string base = file.empty() ? "rule" : file.substr(file.find_last_of('/') + 1);
  return base + ":" + std::to_string(location.line);
}

}  // namespace

void RuleSet::append(RuleSet other) {
  for (auto& rule : other.rules) rules.push_back(std::move(rule));
  for (auto& rule : other.multi_rules) multi_rules.push_back(std::move(rule));
}

RuleSet parse_rules(std::string_view text, const std::string& file, RuleFileFormat format) {
  std::vector<Line> lines = group_by_line(parse_sexprs(text, file));
  std::vector<ParsedLine> parsed;
  for (const Line& line : lines) parsed.push_back(parse_line(line));

  // Group lines into rules: a multi-pattern rule is a line with its '&' continuations, or a
  // pair of lines in TENSAT's multi-pattern files.
  std::vector<std::vector<ParsedLine*>> groups;
  for (size_t i = 0; i < parsed.size(); ++i) {
    ParsedLine& line = parsed[i];
    if (format == RuleFileFormat::TensatMulti) {
      if (line.continuation) fail(line.location, "'&' is not used in TENSAT multi-pattern files");
      if (i % 2 == 0) {
        groups.push_back({&line});
      } else {
        groups.back().push_back(&line);
      }
      continue;
    }
    if (line.continuation) {
      if (groups.empty()) fail(line.location, "'&' continues a rule, but there is none above");
      if (!line.name.empty()) fail(line.location, "a continuation line takes the rule's name");
      groups.back().push_back(&line);
    } else {
      groups.push_back({&line});
    }
  }
  if (format == RuleFileFormat::TensatMulti && !groups.empty() && groups.back().size() != 2) {
    fail(groups.back().front()->location, "a multi-pattern rule needs a second line");
  }

  RuleSet set;
  for (const auto& group : groups) {
    const ParsedLine& head = *group.front();
    std::string name = head.name.empty() ? default_name(file, head.location) : head.name;
    std::vector<const Term*> sides;
    std::vector<const Term*> lhs_sides;
    for (const ParsedLine* line : group) {
      sides.push_back(&line->lhs);
      sides.push_back(&line->rhs);
      lhs_sides.push_back(&line->lhs);
    }
    check_sorts(sides);
    std::vector<Condition> conditions;
    for (const ParsedLine* line : group) {
      check_bound(lhs_sides, line->rhs);
      for (const Condition& condition : line->conditions) {
        check_condition_bound(lhs_sides, condition);
        conditions.push_back(condition);
      }
    }
    if (group.size() == 1) {
      if (head.unordered) {
        fail(head.location, "(unordered) is for multi-pattern rules: it says their parts swap");
      }
      set.rules.push_back({name, head.lhs, head.rhs, conditions, head.location});
      if (head.both_directions) {
        check_bound({&head.rhs}, head.lhs);
        for (const Condition& condition : conditions) check_condition_bound({&head.rhs}, condition);
        set.rules.push_back({name + "-reverse", head.rhs, head.lhs, conditions, head.location});
      }
      continue;
    }
    MultiPatternRule multi{name, {}, head.location};
    for (size_t k = 0; k < group.size(); ++k) {
      const ParsedLine& line = *group[k];
      multi.unordered = multi.unordered || line.unordered;
      if (line.both_directions) fail(line.location, "multi-pattern rules go one way (=>)");
      multi.parts.push_back(
          {name + "#" + std::to_string(k), line.lhs, line.rhs, line.conditions, line.location});
    }
    set.multi_rules.push_back(std::move(multi));
  }
  return set;
}

RuleSet load_rules(const std::string& path, RuleFileFormat format) {
  return parse_rules(read_file(path), path, format);
}

}  // namespace saturate::eqsat
