#include "eqsat/rule_compiler.h"

#include <functional>
#include <optional>

#include "support/error.h"

namespace saturate::eqsat {
namespace {

using egraph::Match;
using egraph::Var;

// The leaf a Constant term stands for. Equal constants are one leaf (leaves are interned), so
// every rewrite that builds the same number shares it.
TensorOp constant_leaf(const Term& term) {
  return TensorOp::leaf(LeafTensor{ir::OpKind::Constant, "pypm_constant",
                                   ir::TensorType{ir::DType::F32, {}}, term.constant});
}

std::string cut_variable(size_t part, size_t k) {
  return "?__cut" + std::to_string(part) + "_" + std::to_string(k);
}

egraph::EClassId compile_into(egraph::PatternAst<TensorOp>& ast, const Term& term, size_t part,
                              size_t& splits) {
  switch (term.kind) {
    case Term::Kind::TensorVariable:
    case Term::Kind::AttributeVariable:
      return ast.add_var(Var("?" + term.variable));
    case Term::Kind::AttributeValue:
      return ast.add_node(TensorOp::attribute(term.value));
    case Term::Kind::Constant:
      return ast.add_node(constant_leaf(term));
    case Term::Kind::Apply:
      break;
  }
  egraph::ChildList children;
  for (const Term& arg : term.args) children.push_back(compile_into(ast, arg, part, splits));
  if (term.op->kind == LanguageOpKind::Split) {
    // node children are (axis, cut, x); the rule wrote (axis, x)
    egraph::EClassId cut = ast.add_var(Var(cut_variable(part, splits++)));
    children = {children[0], cut, children[1]};
  }
  return ast.add_node(TensorOp::of(*term.op), std::move(children));
}

// One subterm of a rule side evaluated against the e-graph, in post-order.
struct Planned {
  const Term* term = nullptr;
  TensorData data;
  std::optional<int64_t> cut;        // splits: where they cut
  std::optional<EClassId> existing;  // the class already holding this subterm, if any
  std::vector<size_t> children;      // indices of the planned children
};

// Evaluates a side bottom-up from the bound classes' facts. Splits cut at the last boundary of
// their input (the rule checker's semantics). Subterms already in the e-graph are looked up when
// `lookup` is set. Returns false if something does not type-check.
class SidePlanner {
 public:
  SidePlanner(const TensorEGraph& egraph, const Match& match, bool lookup)
      : egraph_(egraph), match_(match), lookup_(lookup) {}

  bool plan(const Term& term) {
    root_ = visit(term);
    return root_.has_value();
  }
  const std::vector<Planned>& planned() const { return planned_; }
  size_t root() const { return *root_; }

 private:
  std::optional<size_t> visit(const Term& term) {
    Planned entry;
    entry.term = &term;
    switch (term.kind) {
      case Term::Kind::TensorVariable:
      case Term::Kind::AttributeVariable: {
        EClassId id = egraph_.find(match_.subst.at(Var("?" + term.variable)));
        entry.data = egraph_.data(id);
        entry.existing = id;
        return push(std::move(entry));
      }
      case Term::Kind::AttributeValue:
        entry.data.kind = TensorData::Kind::Attribute;
        entry.data.attribute = term.value;
        entry.data.known = true;
        if (lookup_) entry.existing = egraph_.lookup(TensorNode(TensorOp::attribute(term.value)));
        return push(std::move(entry));
      case Term::Kind::Constant: {
        const TensorOp leaf = constant_leaf(term);
        entry.data = compute_data(leaf, {});
        if (lookup_) entry.existing = egraph_.lookup(TensorNode(leaf));
        return push(std::move(entry));
      }
      case Term::Kind::Apply:
        break;
    }
    std::vector<const TensorData*> child_data;
    for (const Term& arg : term.args) {
      std::optional<size_t> child = visit(arg);
      if (!child) return std::nullopt;
      entry.children.push_back(*child);
    }
    for (size_t child : entry.children) child_data.push_back(&planned_[child].data);
    TensorData cut_data;
    if (term.op->kind == LanguageOpKind::Split) {
      const TensorData& axis = *child_data[0];
      const TensorData& input = *child_data[1];
      if (axis.kind != TensorData::Kind::Attribute || input.kind != TensorData::Kind::Tensor) {
        return std::nullopt;
      }
      int64_t axis_value = std::get<int64_t>(axis.attribute);
      int rank = input.info.type.rank();
      if (axis_value < 0 || axis_value >= rank) return std::nullopt;
      std::optional<int64_t> cut = split_point(input.info, static_cast<int>(axis_value));
      if (!cut) return std::nullopt;
      entry.cut = cut;
      cut_data.kind = TensorData::Kind::Attribute;
      cut_data.attribute = *cut;
      child_data = {child_data[0], &cut_data, child_data[1]};
    }
    entry.data = compute_data(TensorOp::of(*term.op), child_data);
    if (entry.data.kind == TensorData::Kind::Invalid) return std::nullopt;
    if (lookup_) entry.existing = lookup_existing(entry);
    return push(std::move(entry));
  }

  std::optional<EClassId> lookup_existing(const Planned& entry) const {
    egraph::ChildList children;
    for (size_t child : entry.children) {
      if (!planned_[child].existing) return std::nullopt;
      children.push_back(*planned_[child].existing);
    }
    if (entry.cut) {
      std::optional<EClassId> cut = egraph_.lookup(TensorNode(TensorOp::attribute(*entry.cut)));
      if (!cut) return std::nullopt;
      children = {children[0], *cut, children[1]};
    }
    return egraph_.lookup(TensorNode(TensorOp::of(*entry.term->op), std::move(children)));
  }

  size_t push(Planned entry) {
    planned_.push_back(std::move(entry));
    return planned_.size() - 1;
  }

  const TensorEGraph& egraph_;
  const Match& match_;
  bool lookup_;
  std::vector<Planned> planned_;
  std::optional<size_t> root_;
};

// Adds the planned side to the e-graph (subterms that exist are reused); returns its class.
EClassId instantiate(TensorEGraph& egraph, const std::vector<Planned>& planned, size_t root) {
  std::vector<EClassId> ids(planned.size());
  for (size_t i = 0; i <= root; ++i) {
    const Planned& entry = planned[i];
    if (entry.term->kind == Term::Kind::TensorVariable ||
        entry.term->kind == Term::Kind::AttributeVariable) {
      ids[i] = *entry.existing;
      continue;
    }
    if (entry.term->kind == Term::Kind::AttributeValue) {
      ids[i] = egraph.add(TensorNode(TensorOp::attribute(entry.term->value)));
      continue;
    }
    if (entry.term->kind == Term::Kind::Constant) {
      ids[i] = egraph.add(TensorNode(constant_leaf(*entry.term)));
      continue;
    }
    egraph::ChildList children;
    for (size_t child : entry.children) children.push_back(ids[child]);
    if (entry.cut) {
      EClassId cut = egraph.add(TensorNode(TensorOp::attribute(*entry.cut)));
      children = {children[0], cut, children[1]};
    }
    ids[i] = egraph.add(TensorNode(TensorOp::of(*entry.term->op), std::move(children)));
  }
  return ids[root];
}

// The cuts a left-hand side's splits must have, in the post-order the pattern numbered them.
bool splits_agree(const TensorEGraph& egraph, const Match& match, const Term& lhs, size_t part) {
  SidePlanner planner(egraph, match, false);
  if (!planner.plan(lhs)) return false;
  size_t k = 0;
  for (const Planned& entry : planner.planned()) {
    if (!entry.cut) continue;
    std::optional<EClassId> bound = match.subst.get(Var(cut_variable(part, k++)));
    if (!bound) return false;
    const TensorData& actual = egraph.data(*bound);
    if (actual.kind != TensorData::Kind::Attribute ||
        std::get<int64_t>(actual.attribute) != *entry.cut) {
      return false;
    }
  }
  return true;
}

bool has_split(const Term& term) {
  if (term.kind == Term::Kind::Apply && term.op->kind == LanguageOpKind::Split) return true;
  for (const Term& arg : term.args) {
    if (has_split(arg)) return true;
  }
  return false;
}

// Plans a right-hand side for the class `matched`: it must type-check to the matched class's
// type, and (with a filter) adding it must not close a cycle. Counts a rejection in `counts`.
bool plan_replacement(SidePlanner& plan, const TensorEGraph& egraph, const Term& rhs,
                      EClassId matched, CycleFilter* filter, RuleStats& counts) {
  EClassId root = egraph.find(matched);
  const TensorData& root_data = egraph.data(root);
  if (!plan.plan(rhs) || root_data.kind != TensorData::Kind::Tensor ||
      plan.planned()[plan.root()].data.kind != TensorData::Kind::Tensor ||
      !(plan.planned()[plan.root()].data.info.type == root_data.info.type)) {
    ++counts.shape_rejected;
    return false;
  }
  if (filter == nullptr) return true;
  const auto& planned = plan.planned();
  const Planned& top = planned[plan.root()];
  bool cycle = false;
  if (top.existing) {
    EClassId other = egraph.find(*top.existing);
    cycle = other != root &&
            (filter->reaches(egraph, other, root) || filter->reaches(egraph, root, other));
  } else {
    // Only the children of new nodes can lead back to the matched class.
    for (const Planned& entry : planned) {
      if (entry.existing || entry.term->kind != Term::Kind::Apply) continue;
      for (size_t child : entry.children) {
        const Planned& c = planned[child];
        if (c.existing && c.data.kind != TensorData::Kind::Attribute &&
            filter->reaches(egraph, *c.existing, root)) {
          cycle = true;
        }
      }
      if (cycle) break;
    }
  }
  if (cycle) {
    filter->count_rejection();
    ++counts.cycle_rejected;
    return false;
  }
  return true;
}

struct CompiledRule {
  std::vector<RewriteRule> parts;
  std::vector<Condition> conditions;
  std::vector<bool> lhs_has_split;
  size_t stats_index = 0;
};

}  // namespace

size_t apply_replacement(TensorEGraph& egraph, const Match& match, const Term& rhs,
                         CycleFilter* filter, RuleStats& counts) {
  return apply_replacements(egraph, match, {{match.root(), &rhs}}, filter, counts);
}

size_t apply_replacements(TensorEGraph& egraph, const Match& match,
                          const std::vector<ClassReplacement>& replacements, CycleFilter* filter,
                          RuleStats& counts) {
  std::vector<SidePlanner> plans;
  plans.reserve(replacements.size());
  for (const ClassReplacement& replacement : replacements) {
    plans.emplace_back(egraph, match, true);
    if (!plan_replacement(plans.back(), egraph, *replacement.rhs, replacement.eclass, filter,
                          counts)) {
      return 0;
    }
  }
  size_t changed = 0;
  for (size_t i = 0; i < replacements.size(); ++i) {
    EClassId id = instantiate(egraph, plans[i].planned(), plans[i].root());
    if (egraph.merge(id, replacements[i].eclass)) ++changed;
  }
  if (changed > 0) ++counts.applied;
  return changed;
}

egraph::Pattern<TensorOp> compile_pattern(const Term& lhs, size_t part) {
  egraph::PatternAst<TensorOp> ast;
  size_t splits = 0;
  compile_into(ast, lhs, part, splits);
  return egraph::Pattern<TensorOp>(std::move(ast));
}

std::vector<TensorRewrite> RuleCompiler::compile(const RuleSet& rules) {
  std::vector<TensorRewrite> rewrites;
  auto add = [&](const std::string& name, const std::vector<RewriteRule>& parts, bool unordered) {
    auto rule = std::make_shared<CompiledRule>();
    rule->parts = parts;
    rule->stats_index = stats_->size();
    stats_->push_back(RuleStats{name});
    std::vector<egraph::Pattern<TensorOp>> searchers;
    for (size_t p = 0; p < parts.size(); ++p) {
      searchers.push_back(compile_pattern(parts[p].lhs, p));
      rule->lhs_has_split.push_back(has_split(parts[p].lhs));
      for (const Condition& condition : parts[p].conditions) rule->conditions.push_back(condition);
    }
    auto stats = stats_;
    CycleFilter* filter = cycle_filter_;
    auto apply = [rule, stats, filter](TensorEGraph& egraph, const Match& match) -> size_t {
      RuleStats& counts = (*stats)[rule->stats_index];
      ConditionContext context{[&](const std::string& v) -> std::optional<std::vector<int64_t>> {
                                 auto id = match.subst.get(Var("?" + v));
                                 if (!id) return std::nullopt;
                                 const TensorData& data = egraph.data(*id);
                                 if (data.kind != TensorData::Kind::Tensor) return std::nullopt;
                                 return data.info.type.dims;
                               },
                               [&](const std::string& v) -> std::optional<int64_t> {
                                 auto id = match.subst.get(Var("?" + v));
                                 if (!id) return std::nullopt;
                                 const TensorData& data = egraph.data(*id);
                                 if (data.kind != TensorData::Kind::Attribute) return std::nullopt;
                                 if (const auto* value = std::get_if<int64_t>(&data.attribute))
                                   return *value;
                                 return std::nullopt;
                               }};
      for (const Condition& condition : rule->conditions) {
        if (!holds(condition, context)) {
          ++counts.condition_rejected;
          return 0;
        }
      }
      for (size_t p = 0; p < rule->parts.size(); ++p) {
        if (rule->lhs_has_split[p] && !splits_agree(egraph, match, rule->parts[p].lhs, p)) {
          ++counts.split_rejected;
          return 0;
        }
      }
      std::vector<ClassReplacement> replacements;
      for (size_t p = 0; p < rule->parts.size(); ++p) {
        replacements.push_back({match.roots[p], &rule->parts[p].rhs});
      }
      return apply_replacements(egraph, match, replacements, filter, counts);
    };
    rewrites.emplace_back(name, std::move(searchers), std::move(apply));
    if (parts.size() > 1 && !allow_same_class_) {
      if (unordered) {
        rewrites.back().with_ordered_roots();
      } else {
        rewrites.back().with_distinct_roots();
      }
    }
  };
  for (const RewriteRule& rule : rules.rules) add(rule.name, {rule}, false);
  for (const MultiPatternRule& rule : rules.multi_rules) add(rule.name, rule.parts, rule.unordered);
  return rewrites;
}

}  // namespace saturate::eqsat
