#include "pm/rewriter.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "ir/op_registry.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/module_check.h"
#include "pm/mutable_graph.h"
#include "pm/pattern_text.h"
#include "pm/rule_scope.h"

namespace saturate::pm {

namespace {

using GraphRuleScope = RuleScope<MutableGraph>;

std::string types_text(const std::vector<ir::TensorType>& types) {
  std::string text;
  for (const ir::TensorType& type : types) text += (text.empty() ? "" : ", ") + ir::to_string(type);
  return text;
}

class Rewriter {
 public:
  Rewriter(const ir::Graph& graph, const Module& module, const RewriteOptions& options)
      : module_(module),
        options_(options),
        graph_(graph),
        view_(graph_),
        matcher_(module, view_, options.match),
        rules_by_definition_(module.definitions.size()) {
    for (uint32_t r = 0; r < module.rules.size(); ++r) {
      const Rule& rule = module.rules[r];
      if (rules_by_definition_[rule.definition].empty()) {
        rule_definitions_.push_back(rule.definition);
      }
      rules_by_definition_[rule.definition].push_back(r);
      rule_vars_.push_back(module.rule_variables(rule));
      statistics_.push_back({rule.name, 0, 0, 0});
    }
    // Definitions are tried in file order, not in the order of their first rule.
    std::sort(rule_definitions_.begin(), rule_definitions_.end());
  }

  RewriteResult run() {
    auto start = std::chrono::steady_clock::now();
    RewriteResult result;
    bool changed = true;
    while (changed && result.passes < options_.max_passes) {
      changed = pass();
      ++result.passes;
    }
    result.hit_iteration_cap = changed;
    result.graph = graph_.to_graph();
    result.rules = statistics_;
    for (const RuleStatistics& rule : statistics_) result.applications += rule.applications;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  struct Firing {
    uint32_t rule;
    Match match;
  };
  // An application's operator and the attributes it sets (not yet completed with defaults).
  struct Construction {
    ir::OpKind op;
    ir::Attributes attrs;
  };

  bool pass() {
    bool changed = false;
    for (ir::NodeId id : graph_.topological_order()) {
      for (uint32_t k = 0; k < graph_.node(id).outputs.size(); ++k) {
        if (!graph_.alive(id)) break;
        ir::ValueRef value{id, k};
        // Nothing reads an unused value, so rewriting it would change nothing.
        if (graph_.num_uses(value) == 0) continue;
        changed = rewrite_value(value) || changed;
      }
    }
    return changed;
  }

  bool rewrite_value(ir::ValueRef value) {
    for (uint32_t definition : rule_definitions_) {
      if (!matcher_.may_match(definition, value)) continue;
      std::optional<Firing> firing;
      matcher_.match_all(definition, value, [&](const Match& match) {
        for (uint32_t r : rules_by_definition_[definition]) {
          ++statistics_[r].matches;
          if (!guards_hold(r, match) || !attributes_decided(r, match)) continue;
          if (is_identity(r, match, module_.rules[r].replacement, value)) {
            ++statistics_[r].identity_skips;
            continue;
          }
          if (further_closes_cycle(r, match)) {
            ++statistics_[r].cycle_skips;
            continue;
          }
          firing = Firing{r, match};
          return true;
        }
        return false;
      });
      if (firing) {
        apply(*firing, value);
        return true;
      }
    }
    return false;
  }

  std::string where(uint32_t r) const {
    const Rule& rule = module_.rules[r];
    return source_position(module_, rule.line) + ": rule '" + rule.name + "'";
  }

  bool guards_hold(uint32_t r, const Match& match) const {
    const Rule& rule = module_.rules[r];
    GraphRuleScope scope(graph_, rule_vars_[r], rule, match);
    for (const Expr& guard : rule.guards) {
      if (!evaluate_guard(guard, scope, [&] { return where(r); })) return false;
    }
    return true;
  }

  // Whether every attribute the replacements compute is the same at every value of the
  // symbols (an attribute such as `x.shape[-1] // 2` on a symbolic dim may not be): a rule whose
  // replacement cannot be built for every size does not fire.
  bool attributes_decided(uint32_t r, const Match& match) const {
    const Rule& rule = module_.rules[r];
    GraphRuleScope scope(graph_, rule_vars_[r], rule, match);
    std::vector<const Term*> stack{&rule.replacement};
    for (const FurtherReplacement& further : rule.also) stack.push_back(&further.term);
    while (!stack.empty()) {
      const Term* term = stack.back();
      stack.pop_back();
      for (const AttrExpr& attr : term->attrs) {
        if (!evaluate_decided(attr.value, scope, [&] { return where(r); })) return false;
      }
      for (const Term& arg : term->args) stack.push_back(&arg);
    }
    return true;
  }

  Construction construction(uint32_t r, const Match& match, const Term& term) const {
    const Rule& rule = module_.rules[r];
    GraphRuleScope scope(graph_, rule_vars_[r], rule, match);
    Construction result{term.head.op, {}};
    if (term.head.tag == Head::Tag::Var) {
      const OpSymbol& symbol = scope.symbol(term.head.var);
      result = {symbol.kind, symbol.attrs};
    }
    const ir::OpInfo& info = ir::op_info(result.op);
    for (const AttrExpr& attr : term.attrs) {
      const ir::AttrSpec* spec = info.find_attribute(attr.name);
      if (spec == nullptr) {
        throw PatternError(where(r) + ": operator '" + info.name + "' has no attribute '" +
                           attr.name + "'");
      }
      ExprValue value = evaluate(attr.value, scope, [&] { return where(r); });
      std::optional<ir::AttrValue> converted = to_attribute(value, spec->kind);
      if (!converted) {
        throw PatternError(where(r) + ": attribute '" + attr.name + "' of '" + info.name +
                           "' must be " + std::string(ir::to_string(spec->kind)) + ", not " +
                           kind_name(value) + " " + to_string(value));
      }
      result.attrs.set(attr.name, *converted);
    }
    return result;
  }

  static ir::Attributes scalar_constant(double value) {
    return ir::Attributes{{"shape", ir::Dims{}}, {"value", value}, {"dtype", std::string("f32")}};
  }

  // Whether building `term` would just reproduce `target` (the same value, or an identical
  // node over the same inputs): such a rewrite changes nothing and would repeat forever.
  bool is_identity(uint32_t r, const Match& match, const Term& term, ir::ValueRef target) const {
    const MutableGraph::Node& node = graph_.node(target.node);
    switch (term.tag) {
      case Term::Tag::Var:
        return match.value(module_.rules[r].params[term.var]) == target;
      case Term::Tag::Const:
        return node.op == ir::OpKind::Constant && node.attrs == scalar_constant(term.value);
      case Term::Tag::App: {
        Construction built = construction(r, match, term);
        if (built.op != node.op || target.output != term.output_index ||
            node.inputs.size() != term.args.size()) {
          return false;
        }
        try {
          if (ir::complete_attributes(ir::op_info(built.op), built.attrs) != node.attrs) {
            return false;
          }
        } catch (const Error&) {
          return false;  // building will report it
        }
        for (size_t i = 0; i < term.args.size(); ++i) {
          if (!is_identity(r, match, term.args[i], node.inputs[i])) return false;
        }
        return true;
      }
    }
    return false;
  }

  // Whether a further replacement `(s, t)` of the rule would read, in t, a value computed from
  // s: redirecting s's uses to t would then make a value depend on itself.
  bool further_closes_cycle(uint32_t r, const Match& match) const {
    const Rule& rule = module_.rules[r];
    for (const FurtherReplacement& further : rule.also) {
      ir::ValueRef target = match.value(rule.params[further.var]);
      std::vector<const Term*> stack{&further.term};
      while (!stack.empty()) {
        const Term* term = stack.back();
        stack.pop_back();
        for (const Term& arg : term->args) stack.push_back(&arg);
        if (term->tag != Term::Tag::Var) continue;
        ir::ValueRef read = match.value(rule.params[term->var]);
        if (read != target && graph_.depends_on(read, target.node)) return true;
      }
    }
    return false;
  }

  // A node this application already built with the same operator, attributes and inputs (the
  // replacement and a further replacement that name one fused kernel share it).
  std::optional<ir::NodeId> built_node(ir::OpKind op, const ir::Attributes& attrs,
                                       const std::vector<ir::ValueRef>& inputs) const {
    for (auto id = application_start_; id < graph_.num_nodes(); ++id) {
      const MutableGraph::Node& node = graph_.node(id);
      if (node.op == op && node.attrs == attrs && node.inputs == inputs) return id;
    }
    return std::nullopt;
  }

  ir::ValueRef build(uint32_t r, const Match& match, const Term& term) {
    switch (term.tag) {
      case Term::Tag::Var:
        return match.value(module_.rules[r].params[term.var]);
      case Term::Tag::Const: {
        ir::Attributes attrs = scalar_constant(term.value);
        auto outputs = ir::infer_types(ir::OpKind::Constant, {}, attrs);
        return {graph_.add_node(ir::OpKind::Constant, {}, std::move(attrs), std::move(outputs)), 0};
      }
      case Term::Tag::App:
        break;
    }
    std::vector<ir::ValueRef> inputs;
    std::vector<ir::TensorType> input_types;
    for (const Term& arg : term.args) {
      inputs.push_back(build(r, match, arg));
      input_types.push_back(graph_.type(inputs.back()));
    }
    Construction built = construction(r, match, term);
    const ir::OpInfo& info = ir::op_info(built.op);
    std::vector<ir::TensorType> outputs;
    try {
      built.attrs = ir::complete_attributes(info, built.attrs);
      outputs = ir::infer_types(built.op, input_types, built.attrs);
    } catch (const Error& error) {
      throw PatternError(where(r) + ": the replacement " + to_string(term, rule_vars_[r]) +
                         " is ill-typed: " + error.what() + " (inputs: " + types_text(input_types) +
                         ")");
    }
    if (term.output_index >= outputs.size()) {
      throw PatternError(where(r) + ": the replacement " + to_string(term, rule_vars_[r]) +
                         " asks for output " + std::to_string(term.output_index) + " of '" +
                         info.name + "', which has " + std::to_string(outputs.size()));
    }
    if (auto existing = built_node(built.op, built.attrs, inputs)) {
      return {*existing, term.output_index};
    }
    ir::NodeId id =
        graph_.add_node(built.op, std::move(inputs), std::move(built.attrs), std::move(outputs));
    return {id, term.output_index};
  }

  void apply(const Firing& firing, ir::ValueRef value) {
    const Rule& rule = module_.rules[firing.rule];
    application_start_ = static_cast<ir::NodeId>(graph_.num_nodes());
    ir::ValueRef replacement = build(firing.rule, firing.match, rule.replacement);
    // Further replacements are built before any use moves, so that each reads the values the
    // match bound.
    std::vector<std::pair<ir::ValueRef, ir::ValueRef>> further;
    for (const FurtherReplacement& also : rule.also) {
      ir::ValueRef target = firing.match.value(rule.params[also.var]);
      if (is_identity(firing.rule, firing.match, also.term, target)) continue;
      further.emplace_back(target, build(firing.rule, firing.match, also.term));
    }
    graph_.replace_uses(value, replacement, application_start_);
    for (const auto& [target, built] : further) {
      graph_.replace_uses(target, built, application_start_);
    }
    graph_.remove_if_unused(value.node);
    for (const auto& [target, built] : further) graph_.remove_if_unused(target.node);
    ++statistics_[firing.rule].applications;
  }

  const Module& module_;
  const RewriteOptions& options_;
  MutableGraph graph_;
  MutableGraphView view_;
  Matcher<MutableGraphView> matcher_;
  std::vector<std::vector<uint32_t>> rules_by_definition_;
  std::vector<uint32_t> rule_definitions_;
  std::vector<std::vector<Var>> rule_vars_;
  std::vector<RuleStatistics> statistics_;
  ir::NodeId application_start_ = 0;  // the first node the current application built
};

}  // namespace

RewriteResult rewrite(const ir::Graph& graph, const Module& module, const RewriteOptions& options) {
  check_module(module);
  return Rewriter(graph, module, options).run();
}

}  // namespace saturate::pm
