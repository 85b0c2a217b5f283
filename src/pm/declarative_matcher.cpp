#include "pm/declarative_matcher.h"

#include <optional>
#include <variant>

#include "ir/op_registry.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/pattern_text.h"

namespace saturate::pm {

namespace {

// σ: one optional binding per variable of the alternate being matched.
using Binding = std::optional<std::variant<ir::ValueRef, OpSymbol>>;
using Subst = std::vector<Binding>;
using Substs = std::vector<Subst>;

class SubstScope final : public ExprScope {
 public:
  SubstScope(const Subst& subst, const std::vector<Var>& vars, const ir::Graph& graph)
      : subst_(subst), vars_(vars), graph_(graph) {}
  size_t num_variables() const override { return vars_.size(); }
  const Var& variable(uint32_t var) const override { return vars_[var]; }
  bool is_bound(uint32_t var) const override { return subst_[var].has_value(); }
  const ir::TensorType& type_of(uint32_t var) const override {
    return graph_.type(std::get<ir::ValueRef>(*subst_[var]));
  }
  ir::OpKind op_of(uint32_t var) const override {
    if (const auto* symbol = std::get_if<OpSymbol>(&*subst_[var])) return symbol->kind;
    return graph_.node(std::get<ir::ValueRef>(*subst_[var]).node).op;
  }
  const ir::Attributes& attrs_of(uint32_t var) const override {
    if (const auto* symbol = std::get_if<OpSymbol>(&*subst_[var])) return symbol->attrs;
    return graph_.node(std::get<ir::ValueRef>(*subst_[var]).node).attrs;
  }

 private:
  const Subst& subst_;
  const std::vector<Var>& vars_;
  const ir::Graph& graph_;
};

OpSymbol symbol_of(const ir::Node& node) {
  return {node.op, node.attrs};
}

class DeclarativeMatcher {
 public:
  DeclarativeMatcher(const Module& module, const ir::Graph& graph, size_t max_call_depth)
      : module_(module), graph_(graph), max_call_depth_(max_call_depth) {}

  // The complete substitutions τ of each alternate of `definition` that matches `value`:
  // body, then the constraints in order, then every variable bound.
  std::vector<std::pair<uint32_t, Subst>> match_definition(uint32_t definition,
                                                           ir::ValueRef value) {
    const Definition& def = module_.definitions[definition];
    if (depth_ >= max_call_depth_) {
      throw PatternError(source_position(module_, def.line) + ": pattern '" + def.name +
                         "': recursion deeper than " + std::to_string(max_call_depth_) +
                         " nested calls (at " + graph_.value_name(value) + ")");
    }
    ++depth_;
    std::vector<std::pair<uint32_t, Subst>> results;
    for (uint32_t a = 0; a < def.alternates.size(); ++a) {
      const Alternate& alt = def.alternates[a];
      Context context{def, alt, a};
      Substs substs = match(context, alt.body, value, Subst(alt.vars.size()));
      for (const Constraint& constraint : alt.constraints) {
        substs = apply_constraint(context, constraint, substs);
      }
      for (Subst& subst : substs) {
        bool complete = true;
        for (const Binding& binding : subst) complete = complete && binding.has_value();
        if (complete) results.emplace_back(a, std::move(subst));
      }
    }
    --depth_;
    return results;
  }

 private:
  struct Context {
    const Definition& definition;
    const Alternate& alternate;
    uint32_t index;
  };

  std::string where(const Context& context, uint32_t line) const {
    return source_position(module_, line) + ": pattern '" + context.definition.name +
           "', alternate " + std::to_string(context.index + 1);
  }

  Substs apply_constraint(const Context& context, const Constraint& constraint,
                          const Substs& substs) {
    Substs kept;
    for (const Subst& subst : substs) {
      if (constraint.tag == Constraint::Tag::Guard) {
        SubstScope scope(subst, context.alternate.vars, graph_);
        if (evaluate_guard(constraint.guard, scope,
                           [&] { return where(context, constraint.line); })) {
          kept.push_back(subst);
        }
      } else if (subst[constraint.var]) {
        auto subject = std::get<ir::ValueRef>(*subst[constraint.var]);
        for (Subst& extended : match(context, constraint.pattern, subject, subst)) {
          kept.push_back(std::move(extended));
        }
      }
    }
    return kept;
  }

  Substs match(const Context& context, const Pattern& pattern, ir::ValueRef value,
               const Subst& subst) {
    switch (pattern.tag) {
      case Pattern::Tag::Var:
        return bind(subst, pattern.var, value);
      case Pattern::Tag::App:
        return match_app(context, pattern, value, subst);
      case Pattern::Tag::Const: {
        const ir::Node& node = graph_.node(value.node);
        if (node.op != ir::OpKind::Constant) return {};
        const ir::AttrValue* constant = node.attrs.find("value");
        if (constant == nullptr || !std::holds_alternative<double>(*constant)) return {};
        if (!close_enough(std::get<double>(*constant), pattern.value, graph_.type(value).dtype)) {
          return {};
        }
        return {subst};
      }
      case Pattern::Tag::Call:
        return match_call(context, pattern, value, subst);
      case Pattern::Tag::Alt: {
        Substs all;
        for (const Pattern& option : pattern.args) {
          for (Subst& s : match(context, option, value, subst)) all.push_back(std::move(s));
        }
        return all;
      }
    }
    return {};
  }

  // x: bind when unbound, else the same value.
  static Substs bind(const Subst& subst, uint32_t var, ir::ValueRef value) {
    if (!subst[var]) {
      Subst extended = subst;
      extended[var] = value;
      return {extended};
    }
    if (std::get<ir::ValueRef>(*subst[var]) == value) return {subst};
    return {};
  }

  // A head against an operator symbol: a name must be its kind; an op variable binds to it, or
  // must already be the equal symbol (kind and attributes).
  static std::optional<Subst> unify_head(const Subst& subst, const Head& head,
                                         const OpSymbol& symbol) {
    if (head.tag == Head::Tag::Name) {
      if (head.op != symbol.kind) return std::nullopt;
      return subst;
    }
    if (!subst[head.var]) {
      Subst extended = subst;
      extended[head.var] = symbol;
      return extended;
    }
    if (std::get<OpSymbol>(*subst[head.var]) == symbol) return subst;
    return std::nullopt;
  }

  Substs match_app(const Context& context, const Pattern& pattern, ir::ValueRef value,
                   const Subst& subst) {
    const ir::Node& node = graph_.node(value.node);
    if (value.output != pattern.output_index || node.inputs.size() != pattern.args.size()) {
      return {};
    }
    std::optional<Subst> headed = unify_head(subst, pattern.head, symbol_of(node));
    if (!headed) return {};
    for (const AttrExpr& attr : pattern.attrs) {
      const ir::AttrValue* actual = node.attrs.find(attr.name);
      SubstScope scope(*headed, context.alternate.vars, graph_);
      std::optional<ExprValue> wanted = evaluate_decided(attr.value, scope, [&] {
        return where(context, context.alternate.line) + ", attribute '" + attr.name + "'";
      });
      if (!wanted || actual == nullptr ||
          !attribute_matches(*actual, ir::op_info(node.op).find_attribute(attr.name), *wanted)) {
        return {};
      }
    }
    Substs results{*headed};
    for (size_t i = 0; i < pattern.args.size(); ++i) {
      Substs next;
      for (const Subst& s : results) {
        for (Subst& extended : match(context, pattern.args[i], node.inputs[i], s)) {
          next.push_back(std::move(extended));
        }
      }
      results = std::move(next);
    }
    return results;
  }

  // P(q1..qn): for each match τ of P at the value, each qi against τ(param i) under σ.
  Substs match_call(const Context& context, const Pattern& pattern, ir::ValueRef value,
                    const Subst& subst) {
    Substs all;
    for (const auto& [alternate, callee] : match_definition(pattern.callee, value)) {
      Substs results{subst};
      for (size_t i = 0; i < pattern.call_args.size(); ++i) {
        const CallArg& arg = pattern.call_args[i];
        Substs next;
        for (const Subst& s : results) {
          if (arg.kind == CallArg::Kind::Pattern) {
            auto param = std::get<ir::ValueRef>(*callee[i]);
            for (Subst& extended : match(context, arg.pattern, param, s)) {
              next.push_back(std::move(extended));
            }
          } else if (auto unified = unify_head(s, arg.head, std::get<OpSymbol>(*callee[i]))) {
            next.push_back(std::move(*unified));
          }
        }
        results = std::move(next);
      }
      for (Subst& s : results) all.push_back(std::move(s));
    }
    return all;
  }

  const Module& module_;
  const ir::Graph& graph_;
  size_t max_call_depth_;
  size_t depth_ = 0;
};

}  // namespace

std::vector<Match> match_declaratively(const Module& module, const ir::Graph& graph,
                                       uint32_t definition, ir::ValueRef value,
                                       size_t max_call_depth) {
  DeclarativeMatcher matcher(module, graph, max_call_depth);
  const Definition& def = module.definitions.at(definition);
  std::vector<Match> matches;
  for (const auto& [alternate, subst] : matcher.match_definition(definition, value)) {
    Match match;
    match.definition = definition;
    match.alternate = alternate;
    for (uint32_t p = 0; p < def.num_params; ++p) {
      const auto& binding = *subst[p];
      if (const auto* v = std::get_if<ir::ValueRef>(&binding)) {
        match.params.emplace_back(*v);
      } else {
        match.params.emplace_back(std::get<OpSymbol>(binding));
      }
    }
    bool seen = false;
    for (const Match& earlier : matches) seen = seen || earlier == match;
    if (!seen) matches.push_back(std::move(match));
  }
  return matches;
}

}  // namespace saturate::pm
