#include "pm/egraph_rules.h"

#include <algorithm>
#include <string>
#include <variant>

#include "eqsat/language.h"
#include "eqsat/rule_compiler.h"
#include "eqsat/term.h"
#include "ir/op_registry.h"
#include "pm/egraph_view.h"
#include "pm/errors.h"
#include "pm/expr_eval.h"
#include "pm/pattern_text.h"

namespace saturate::pm {
namespace {

using egraph::EClassId;
using EMatch = BasicMatch<EClassId>;

// A rule's variables read from one e-graph match.
class MatchScope final : public ExprScope {
 public:
  MatchScope(const EMatch& match, const Rule& rule, const std::vector<Var>& vars,
             const EGraphView& view)
      : match_(match), rule_(rule), vars_(vars), view_(view) {}
  size_t num_variables() const override { return vars_.size(); }
  const Var& variable(uint32_t var) const override { return vars_[var]; }
  bool is_bound(uint32_t) const override { return true; }
  const ir::TensorType& type_of(uint32_t var) const override {
    return view_.type(match_.value(rule_.params[var]));
  }
  ir::OpKind op_of(uint32_t var) const override {
    const auto& binding = match_.params[rule_.params[var]];
    if (const auto* symbol = std::get_if<OpSymbol>(&binding)) return symbol->kind;
    return first_producer(std::get<EClassId>(binding)).first;
  }
  const ir::Attributes& attrs_of(uint32_t var) const override {
    const auto& binding = match_.params[rule_.params[var]];
    if (const auto* symbol = std::get_if<OpSymbol>(&binding)) return symbol->attrs;
    return *first_producer(std::get<EClassId>(binding)).second;
  }

 private:
  // In an e-graph a value has several producers; guards read the first (the node the graph
  // came in with, for classes of the input graph).
  std::pair<ir::OpKind, const ir::Attributes*> first_producer(EClassId value) const {
    std::pair<ir::OpKind, const ir::Attributes*> found{ir::OpKind::Input, &empty_};
    view_.for_each_producer(value, [&](EGraphView::NodeRef node, uint32_t) {
      found = {view_.op(node), &view_.attrs(node)};
      return true;
    });
    return found;
  }

  const EMatch& match_;
  const Rule& rule_;
  const std::vector<Var>& vars_;
  const EGraphView& view_;
  ir::Attributes empty_;
};

std::string variable_name(uint32_t param) {
  return "p" + std::to_string(param);
}

// The rule's replacement as a tensor-language term; variables stay variables (?p<param>).
class TermBuilder {
 public:
  TermBuilder(const Module& module, const Rule& rule, const EMatch& match, const ExprScope& scope)
      : module_(module), rule_(rule), match_(match), scope_(scope) {}

  eqsat::Term build(const Term& term) const {
    switch (term.tag) {
      case Term::Tag::Var: {
        eqsat::Term variable;
        variable.kind = eqsat::Term::Kind::TensorVariable;
        variable.variable = variable_name(rule_.params[term.var]);
        return variable;
      }
      case Term::Tag::Const: {
        eqsat::Term constant;
        constant.kind = eqsat::Term::Kind::Constant;
        constant.constant = term.value;
        return constant;
      }
      case Term::Tag::App:
        return build_application(term);
    }
    throw PatternError(where() + ": unknown term");
  }

 private:
  // An application's operator and its complete attributes.
  std::pair<ir::OpKind, ir::Attributes> construction(const Term& term) const {
    ir::OpKind kind;
    ir::Attributes given;
    if (term.head.tag == Head::Tag::Name) {
      kind = term.head.op;
    } else {
      const OpSymbol& symbol = match_.symbol(rule_.params[term.head.var]);
      kind = symbol.kind;
      given = symbol.attrs;
    }
    const ir::OpInfo& info = ir::op_info(kind);
    for (const AttrExpr& attr : term.attrs) {
      const ir::AttrSpec* spec = info.find_attribute(attr.name);
      ExprValue value = evaluate(attr.value, scope_, [&] { return where(); });
      std::optional<ir::AttrValue> converted = to_attribute(value, spec->kind);
      if (!converted) {
        throw PatternError(where() + ": attribute " + attr.name + " = " + to_string(value) +
                           " is not a " + std::string(ir::to_string(spec->kind)));
      }
      given.set(attr.name, *converted);
    }
    return {kind, ir::complete_attributes(info, given)};
  }

  // The output types of an application on its arguments' types; nullopt where they do not
  // type-check (the planner then rejects the replacement, as it does any ill-typed one).
  std::optional<std::vector<ir::TensorType>> output_types(const Term& term) const {
    std::vector<ir::TensorType> inputs;
    for (const Term& arg : term.args) {
      std::optional<ir::TensorType> type = value_type(arg);
      if (!type) return std::nullopt;
      inputs.push_back(*type);
    }
    auto [kind, attrs] = construction(term);
    try {
      return ir::infer_types(kind, inputs, attrs);
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  std::optional<ir::TensorType> value_type(const Term& term) const {
    switch (term.tag) {
      case Term::Tag::Var:
        return scope_.type_of(term.var);
      case Term::Tag::Const:
        return ir::TensorType{ir::DType::F32, {}};
      case Term::Tag::App:
        break;
    }
    std::optional<std::vector<ir::TensorType>> outputs = output_types(term);
    if (!outputs || term.output_index >= outputs->size()) return std::nullopt;
    return (*outputs)[term.output_index];
  }

  eqsat::Term build_application(const Term& term) const {
    eqsat::Term result = build_operator(term);
    std::optional<std::vector<ir::TensorType>> outputs = output_types(term);
    if (term.output_index == 0 && (!outputs || outputs->size() == 1)) return result;
    // A multi-output operator's class is a tuple: the value is one of its outputs.
    eqsat::Term index;
    index.kind = eqsat::Term::Kind::AttributeValue;
    index.attr_kind = ir::AttrKind::Int;
    index.value = static_cast<int64_t>(term.output_index);
    eqsat::Term projection;
    projection.kind = eqsat::Term::Kind::Apply;
    projection.op = eqsat::find_language_op("output");
    projection.args.push_back(std::move(index));
    projection.args.push_back(std::move(result));
    return projection;
  }

  eqsat::Term build_operator(const Term& term) const {
    auto [kind, attrs] = construction(term);
    const ir::OpInfo& info = ir::op_info(kind);
    const eqsat::LanguageOp& op = eqsat::language_op_for(kind, term.args.size());
    eqsat::Term result;
    result.kind = eqsat::Term::Kind::Apply;
    result.op = &op;
    size_t next_input = 0;
    for (const eqsat::Slot& slot : op.slots) {
      if (slot.kind == eqsat::SlotKind::Attribute) {
        eqsat::Term value;
        value.kind = eqsat::Term::Kind::AttributeValue;
        value.attr_kind = slot.attr_kind;
        const ir::AttrValue* found = attrs.find(slot.name);
        if (slot.check_only && found == nullptr) {
          // TENSAT's concat ndim: the rank of the inputs, which the IR operator does not carry.
          std::optional<ir::TensorType> first =
              term.args.empty() ? std::nullopt : value_type(term.args[0]);
          if (!first) throw PatternError(where() + ": " + info.name + " on untyped inputs");
          value.value = int64_t{first->rank()};
        } else if (found == nullptr) {
          throw PatternError(where() + ": " + info.name + " needs attribute " + slot.name);
        } else {
          value.value = *found;
        }
        result.args.push_back(std::move(value));
      } else if (op.variadic_tensors && &slot == &op.slots.back()) {
        while (next_input < term.args.size()) result.args.push_back(build(term.args[next_input++]));
      } else {
        if (next_input >= term.args.size()) {
          throw PatternError(where() + ": " + info.name + " given too few inputs");
        }
        result.args.push_back(build(term.args[next_input++]));
      }
    }
    return result;
  }

  std::string where() const {
    return source_position(module_, rule_.line) + ": rule '" + rule_.name + "'";
  }

  const Module& module_;
  const Rule& rule_;
  const EMatch& match_;
  const ExprScope& scope_;
};

// Rules the e-graph cannot express are refused before the run rather than midway: the e-graph
// holds an IR split as TENSAT's binary splits at recorded concat boundaries, not as an operator
// with outputs to pick.
void check_expressible(const Module& module, const Rule& rule, const Term& term) {
  if (term.tag == Term::Tag::App && term.head.tag == Head::Tag::Name &&
      term.head.op == ir::OpKind::Split) {
    throw PatternError(source_position(module, rule.line) + ": rule '" + rule.name +
                       "' builds a split, which the e-graph rewrite does not support (pm apply "
                       "does)");
  }
  for (const Term& arg : term.args) check_expressible(module, rule, arg);
}

// What the searcher hands the applier: which rule, its replacement for this match, and the
// further classes the rule replaces with theirs.
struct PlannedRewrite {
  size_t rule = 0;
  eqsat::Term replacement;
  std::vector<std::pair<EClassId, eqsat::Term>> further;
};

}  // namespace

eqsat::ExtraRules compile_egraph_rules(std::shared_ptr<const Module> module,
                                       eqsat::CycleFilter* filter, MatchOptions options) {
  auto stats = std::make_shared<std::vector<eqsat::RuleStats>>();
  for (const Rule& rule : module->rules) {
    check_expressible(*module, rule, rule.replacement);
    for (const FurtherReplacement& further : rule.also) {
      check_expressible(*module, rule, further.term);
    }
    stats->push_back(eqsat::RuleStats{"pypm:" + rule.name});
  }

  // Each rule's variables, computed once rather than per match.
  auto rule_vars = std::make_shared<std::vector<std::vector<Var>>>();
  for (const Rule& rule : module->rules) rule_vars->push_back(module->rule_variables(rule));

  auto search = [module, options, rule_vars](const eqsat::TensorEGraph& egraph, size_t limit) {
    std::vector<egraph::Match> found;
    EGraphView view(egraph);
    Matcher<EGraphView> matcher(*module, view, options);
    for (EClassId eclass : view.tensor_classes()) {
      for (uint32_t d = 0; d < module->definitions.size(); ++d) {
        if (!module->has_rules(d) || !matcher.may_match(d, eclass)) continue;
        // Different alternates or producers can bind the same way; each binding counts once.
        std::vector<std::vector<EMatch::Binding>> seen;
        matcher.match_all(d, eclass, [&](const EMatch& match) {
          if (std::find(seen.begin(), seen.end(), match.params) != seen.end()) return false;
          seen.push_back(match.params);
          for (size_t r = 0; r < module->rules.size(); ++r) {
            const Rule& rule = module->rules[r];
            if (rule.definition != d) continue;
            MatchScope scope(match, rule, (*rule_vars)[r], view);
            bool guards_hold = true;
            for (const Expr& guard : rule.guards) {
              guards_hold =
                  guards_hold && evaluate_guard(guard, scope, [&] {
                    return source_position(*module, rule.line) + ": rule '" + rule.name + "'";
                  });
            }
            if (!guards_hold) continue;
            egraph::Match rewrite_match;
            rewrite_match.roots.push_back(eclass);
            for (uint32_t p = 0; p < match.params.size(); ++p) {
              if (const auto* value = std::get_if<EClassId>(&match.params[p])) {
                rewrite_match.subst.insert(egraph::Var("?" + variable_name(p)), *value);
              }
            }
            TermBuilder builder(*module, rule, match, scope);
            std::shared_ptr<PlannedRewrite> planned;
            try {
              planned = std::make_shared<PlannedRewrite>(
                  PlannedRewrite{r, builder.build(rule.replacement), {}});
              for (const FurtherReplacement& further : rule.also) {
                planned->further.emplace_back(match.value(rule.params[further.var]),
                                              builder.build(further.term));
              }
            } catch (const Undecided&) {
              // An attribute of the replacement depends on symbolic sizes: not for every size.
              continue;
            }
            rewrite_match.payload = std::move(planned);
            found.push_back(std::move(rewrite_match));
            if (found.size() >= limit) return true;
          }
          return false;
        });
        if (found.size() >= limit) return found;
      }
    }
    return found;
  };
  auto apply = [stats, filter](eqsat::TensorEGraph& egraph, const egraph::Match& match) {
    const auto& planned = *static_cast<const PlannedRewrite*>(match.payload.get());
    std::vector<eqsat::ClassReplacement> replacements{{match.root(), &planned.replacement}};
    for (const auto& [eclass, term] : planned.further) replacements.push_back({eclass, &term});
    return eqsat::apply_replacements(egraph, match, replacements, filter, (*stats)[planned.rule]);
  };
  eqsat::ExtraRules extra;
  extra.rewrites.emplace_back("pypm:" + module->source_file, std::move(search), std::move(apply));
  extra.stats = [stats] { return *stats; };
  return extra;
}

}  // namespace saturate::pm
