#include "pm/explain.h"

#include "ir/op_registry.h"
#include "pm/graph_view.h"
#include "pm/match_trace.h"
#include "pm/module_check.h"
#include "pm/pattern_text.h"
#include "pm/rule_scope.h"

namespace saturate::pm {

namespace {

std::string bindings_text(const Module& module, const Match& match, const ir::Graph& graph) {
  const Definition& definition = module.definitions[match.definition];
  std::string text;
  for (size_t p = 0; p < match.params.size(); ++p) {
    text += (text.empty() ? "" : ", ") + definition.param(p).name + " = ";
    if (const auto* value = std::get_if<ir::ValueRef>(&match.params[p])) {
      text += graph.value_name(*value);
    } else {
      text += std::string(ir::to_string(std::get<OpSymbol>(match.params[p]).kind));
    }
  }
  return text;
}

// Notes in the trace what each rule of the definition makes of the match; true when one fires.
bool note_rules(const Module& module, uint32_t definition, const Match& match,
                const ir::Graph& graph, MatchTrace& trace) {
  trace.note("match: " + bindings_text(module, match, graph));
  for (const Rule& rule : module.rules) {
    if (rule.definition != definition) continue;
    std::vector<Var> vars = module.rule_variables(rule);
    RuleScope<ir::Graph> scope(graph, vars, rule, match);
    std::string label = "rule '" + rule.name + "' (line " + std::to_string(rule.line) + ")";
    const Expr* failed = nullptr;
    auto where = [&] { return source_position(module, rule.line) + ": rule '" + rule.name + "'"; };
    for (const Expr& guard : rule.guards) {
      if (!evaluate_guard(guard, scope, where)) {
        failed = &guard;
        break;
      }
    }
    if (failed != nullptr) {
      // Over symbolic dims a guard also fails where it holds at some sizes only.
      bool undecided = !evaluate_decided(*failed, scope, where).has_value();
      trace.note(
          label + ": guard `" + to_string(*failed, vars) + "` is " +
          (undecided ? "undecided (it holds at some sizes only, or cannot be proven)" : "false"));
      continue;
    }
    std::string text = label + " fires: the value becomes " + to_string(rule.replacement, vars);
    for (const FurtherReplacement& further : rule.also) {
      text += ", and " + vars[further.var].name + " becomes " + to_string(further.term, vars);
    }
    trace.note(text);
    return true;
  }
  return false;
}

}  // namespace

std::string explain(const ir::Graph& graph, const Module& module, std::string_view value_name,
                    const MatchOptions& options) {
  check_module(module);
  std::optional<ir::ValueRef> value = graph.find_value(value_name);
  if (!value)
    throw Error("explain: the graph has no value named '" + std::string(value_name) + "'");
  const ir::Node& node = graph.node(value->node);
  std::string out =
      "value " + std::string(value_name) + " = " + std::string(ir::to_string(node.op)) + "(";
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    out += (i > 0 ? ", " : "") + graph.value_name(node.inputs[i]);
  }
  out += ") : " + ir::to_string(graph.type(*value)) + "\n";

  GraphView view(graph);
  Matcher<GraphView> matcher(module, view, options);
  size_t patterns = 0;
  // A module of patterns only (a library, or patterns used for analysis) is explained pattern
  // by pattern; otherwise the patterns that rewrite.
  const bool any_rules = !module.rules.empty();
  for (uint32_t d = 0; d < module.definitions.size(); ++d) {
    if (any_rules && !module.has_rules(d)) continue;
    ++patterns;
    const Definition& definition = module.definitions[d];
    MatchTrace trace;
    matcher.set_trace(&trace);
    size_t matches = 0;
    bool fired = false;
    matcher.match_all(d, *value, [&](const Match& match) {
      ++matches;
      if (!any_rules) {  // a pattern-only module: the first match is the answer
        trace.note("match: " + bindings_text(module, match, graph));
        return true;
      }
      fired = note_rules(module, d, match, graph, trace);
      return fired;
    });
    matcher.set_trace(nullptr);
    std::string outcome = fired         ? "a rule fires"
                          : !any_rules  ? (matches > 0 ? "matches" : "no match")
                          : matches > 0 ? "matches, but no rule fires"
                                        : "no match";
    out += "pattern '" + definition.name + "' (" + source_position(module, definition.line) +
           "): " + outcome + "\n" + trace.render(1);
  }
  if (patterns == 0) out += "the module has no patterns\n";
  return out;
}

}  // namespace saturate::pm
