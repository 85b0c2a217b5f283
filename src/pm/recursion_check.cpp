#include "pm/recursion_check.h"

#include <algorithm>

namespace saturate::pm {

namespace {

void collect_callees(const Pattern& pattern, std::vector<uint32_t>& callees) {
  if (pattern.tag == Pattern::Tag::Call) callees.push_back(pattern.callee);
  for (const Pattern& arg : pattern.args) collect_callees(arg, callees);
  for (const CallArg& arg : pattern.call_args) {
    if (arg.kind == CallArg::Kind::Pattern) collect_callees(arg.pattern, callees);
  }
}

// Grammar productivity: a definition terminates if one of its alternates only calls
// definitions that terminate.
class Productivity {
 public:
  explicit Productivity(const Module& module)
      : module_(module), productive_(module.definitions.size(), false) {
    std::vector<uint32_t> order = callees_first(module);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t d : order) {
        if (productive_[d]) continue;
        for (const Alternate& alternate : module_.definitions[d].alternates) {
          if (alternate_productive(alternate)) {
            productive_[d] = true;
            changed = true;
            break;
          }
        }
      }
    }
  }

  bool productive(size_t definition) const { return productive_[definition]; }

  // A definition an unproductive alternate calls that does not terminate, for the message.
  std::optional<uint32_t> blocking_callee(const Pattern& pattern) const {
    switch (pattern.tag) {
      case Pattern::Tag::App:
      case Pattern::Tag::Alt:
        for (const Pattern& arg : pattern.args) {
          if (auto callee = blocking_callee(arg)) return callee;
        }
        return std::nullopt;
      case Pattern::Tag::Call:
        if (!productive_[pattern.callee]) return pattern.callee;
        for (const CallArg& arg : pattern.call_args) {
          if (arg.kind != CallArg::Kind::Pattern) continue;
          if (auto callee = blocking_callee(arg.pattern)) return callee;
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

 private:
  bool alternate_productive(const Alternate& alternate) const {
    if (!pattern_productive(alternate.body)) return false;
    for (const Constraint& constraint : alternate.constraints) {
      if (constraint.tag == Constraint::Tag::Match && !pattern_productive(constraint.pattern)) {
        return false;
      }
    }
    return true;
  }

  bool pattern_productive(const Pattern& pattern) const {
    switch (pattern.tag) {
      case Pattern::Tag::Var:
      case Pattern::Tag::Const:
        return true;
      case Pattern::Tag::App:
        return std::all_of(pattern.args.begin(), pattern.args.end(),
                           [&](const Pattern& arg) { return pattern_productive(arg); });
      case Pattern::Tag::Alt:
        return std::any_of(pattern.args.begin(), pattern.args.end(),
                           [&](const Pattern& arg) { return pattern_productive(arg); });
      case Pattern::Tag::Call:
        if (!productive_[pattern.callee]) return false;
        return std::all_of(
            pattern.call_args.begin(), pattern.call_args.end(), [&](const CallArg& arg) {
              return arg.kind != CallArg::Kind::Pattern || pattern_productive(arg.pattern);
            });
    }
    return true;
  }

  const Module& module_;
  std::vector<bool> productive_;
};

// Which definitions each definition calls at its own root value (without consuming a node).
// A variable bound to the root (the body is `x`, or a callee binds its parameter to its own
// root) carries "same value" into match constraints and call arguments. Over-approximate: a
// branch that might be taken counts.
class SameValueCalls {
 public:
  explicit SameValueCalls(const Module& module)
      : module_(module),
        root_params_(module.definitions.size()),
        calls_(module.definitions.size()) {
    for (size_t d = 0; d < module_.definitions.size(); ++d) {
      root_params_[d].assign(module_.definitions[d].num_params, false);
    }
    std::vector<uint32_t> order = callees_first(module);
    for (changed_ = true; changed_;) {
      changed_ = false;
      for (uint32_t d : order) analyze(d);
    }
  }

  const std::vector<uint32_t>& calls(size_t definition) const { return calls_[definition]; }

 private:
  void analyze(size_t d) {
    const Definition& definition = module_.definitions[d];
    for (const Alternate& alternate : definition.alternates) {
      std::vector<bool> at_root(alternate.vars.size(), false);
      // Constraints can pass "same value" to each other in any order; iterate to a fixpoint.
      for (bool grew = true; grew;) {
        size_t before = std::count(at_root.begin(), at_root.end(), true);
        walk(d, alternate.body, true, at_root);
        for (const Constraint& constraint : alternate.constraints) {
          if (constraint.tag != Constraint::Tag::Match) continue;
          walk(d, constraint.pattern, at_root[constraint.var], at_root);
        }
        grew = static_cast<size_t>(std::count(at_root.begin(), at_root.end(), true)) != before;
      }
      for (size_t p = 0; p < definition.num_params; ++p) {
        if (at_root[p] && !root_params_[d][p]) {
          root_params_[d][p] = true;
          changed_ = true;
        }
      }
    }
  }

  void walk(size_t d, const Pattern& pattern, bool at_root, std::vector<bool>& root_vars) {
    switch (pattern.tag) {
      case Pattern::Tag::Var:
        if (at_root) root_vars[pattern.var] = true;
        return;
      case Pattern::Tag::App:
        for (const Pattern& arg : pattern.args) walk(d, arg, false, root_vars);
        return;
      case Pattern::Tag::Const:
        return;
      case Pattern::Tag::Alt:
        for (const Pattern& option : pattern.args) walk(d, option, at_root, root_vars);
        return;
      case Pattern::Tag::Call:
        if (at_root) add_call(d, pattern.callee);
        for (size_t i = 0; i < pattern.call_args.size(); ++i) {
          const CallArg& arg = pattern.call_args[i];
          if (arg.kind != CallArg::Kind::Pattern) continue;
          bool same = at_root && root_params_[pattern.callee][i];
          walk(d, arg.pattern, same, root_vars);
        }
        return;
    }
  }

  void add_call(size_t caller, uint32_t callee) {
    auto& calls = calls_[caller];
    if (std::find(calls.begin(), calls.end(), callee) != calls.end()) return;
    calls.push_back(callee);
    changed_ = true;
  }

  const Module& module_;
  std::vector<std::vector<bool>> root_params_;
  std::vector<std::vector<uint32_t>> calls_;
  bool changed_ = false;
};

// A cycle in the same-value call graph, as the path of definitions around it.
std::optional<std::vector<uint32_t>> find_cycle(const Module& module, const SameValueCalls& graph) {
  enum class Color : uint8_t { White, Grey, Black };
  size_t count = module.definitions.size();
  std::vector<Color> color(count, Color::White);
  std::vector<uint32_t> path;
  // Iterative DFS: the call graph is as deep as the module is long.
  struct Entry {
    uint32_t definition;
    size_t next_edge;
  };
  for (uint32_t start = 0; start < count; ++start) {
    if (color[start] != Color::White) continue;
    std::vector<Entry> stack{{start, 0}};
    color[start] = Color::Grey;
    path = {start};
    while (!stack.empty()) {
      Entry& top = stack.back();
      const auto& edges = graph.calls(top.definition);
      if (top.next_edge == edges.size()) {
        color[top.definition] = Color::Black;
        stack.pop_back();
        path.pop_back();
        continue;
      }
      uint32_t next = edges[top.next_edge++];
      if (color[next] == Color::Grey) {
        auto from = std::find(path.begin(), path.end(), next);
        std::vector<uint32_t> cycle(from, path.end());
        cycle.push_back(next);
        return cycle;
      }
      if (color[next] == Color::White) {
        color[next] = Color::Grey;
        stack.push_back({next, 0});
        path.push_back(next);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<uint32_t> callees_first(const Module& module) {
  size_t count = module.definitions.size();
  std::vector<std::vector<uint32_t>> callees(count);
  for (size_t d = 0; d < count; ++d) {
    for (const Alternate& alternate : module.definitions[d].alternates) {
      collect_callees(alternate.body, callees[d]);
      for (const Constraint& constraint : alternate.constraints) {
        if (constraint.tag == Constraint::Tag::Match)
          collect_callees(constraint.pattern, callees[d]);
      }
    }
  }
  std::vector<uint32_t> order;
  order.reserve(count);
  std::vector<bool> seen(count, false);
  struct Entry {
    uint32_t definition;
    size_t next;
  };
  std::vector<Entry> stack;  // explicit: call chains can be as long as the module
  for (uint32_t start = 0; start < count; ++start) {
    if (seen[start]) continue;
    seen[start] = true;
    stack.push_back({start, 0});
    while (!stack.empty()) {
      Entry& top = stack.back();
      if (top.next == callees[top.definition].size()) {
        order.push_back(top.definition);
        stack.pop_back();
        continue;
      }
      uint32_t callee = callees[top.definition][top.next++];
      if (callee < count && !seen[callee]) {
        seen[callee] = true;
        stack.push_back({callee, 0});
      }
    }
  }
  return order;
}

std::optional<RecursionProblem> find_recursion_problem(const Module& module) {
  Productivity productivity(module);
  for (uint32_t d = 0; d < module.definitions.size(); ++d) {
    if (productivity.productive(d)) continue;
    const Definition& definition = module.definitions[d];
    std::string callee = definition.name;
    if (!definition.alternates.empty()) {
      if (auto blocking = productivity.blocking_callee(definition.alternates.front().body)) {
        callee = module.definitions[*blocking].name;
      }
    }
    std::string message = callee == definition.name
                              ? "recursion without a base case: every alternate calls '" +
                                    definition.name + "' again (directly or through other patterns)"
                              : "recursion without a base case: every alternate depends on '" +
                                    callee + "', which never stops calling itself";
    return RecursionProblem{d, message};
  }
  SameValueCalls same_value(module);
  if (auto cycle = find_cycle(module, same_value)) {
    std::string chain;
    for (uint32_t d : *cycle) {
      chain += (chain.empty() ? "'" : " -> '") + module.definitions[d].name + "'";
    }
    return RecursionProblem{cycle->front(),
                            "left recursion: " + chain +
                                " returns to the same pattern at the same value without consuming "
                                "a node, so matching would never stop"};
  }
  return std::nullopt;
}

}  // namespace saturate::pm
