#pragma once

#include <vector>

#include "pm/core.h"
#include "pm/expr_eval.h"
#include "pm/match.h"

namespace saturate::pm {

// What a rule's guards and attribute expressions read: rule variable i is parameter
// rule.params[i] of the match. GraphT is ir::Graph or MutableGraph (type(value) and
// node(id).op/.attrs).
template <class GraphT>
class RuleScope final : public ExprScope {
 public:
  RuleScope(const GraphT& graph, const std::vector<Var>& vars, const Rule& rule, const Match& match)
      : graph_(graph), vars_(vars), rule_(rule), match_(match) {}

  size_t num_variables() const override { return vars_.size(); }
  const Var& variable(uint32_t var) const override { return vars_[var]; }
  bool is_bound(uint32_t) const override { return true; }
  const ir::TensorType& type_of(uint32_t var) const override { return graph_.type(value(var)); }
  ir::OpKind op_of(uint32_t var) const override {
    if (vars_[var].kind == VarKind::Op) return symbol(var).kind;
    return graph_.node(value(var).node).op;
  }
  const ir::Attributes& attrs_of(uint32_t var) const override {
    if (vars_[var].kind == VarKind::Op) return symbol(var).attrs;
    return graph_.node(value(var).node).attrs;
  }

  ir::ValueRef value(uint32_t var) const { return match_.value(rule_.params[var]); }
  const OpSymbol& symbol(uint32_t var) const { return match_.symbol(rule_.params[var]); }

 private:
  const GraphT& graph_;
  const std::vector<Var>& vars_;
  const Rule& rule_;
  const Match& match_;
};

}  // namespace saturate::pm
