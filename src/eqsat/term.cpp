#include "eqsat/term.h"

#include <algorithm>

#include "ir/attribute_text.h"

namespace saturate::eqsat {
namespace {

[[noreturn]] void fail(const SExpr& where, const std::string& message) {
  throw ParseError(where.location, message);
}

bool is_variable_atom(const SExpr& expr) {
  return expr.kind == SExpr::Kind::Symbol && expr.text.size() > 1 && expr.text[0] == '?';
}

Term parse_slot(const SExpr& expr, const Slot& slot);

Term parse_apply(const SExpr& expr) {
  if (expr.kind != SExpr::Kind::List || expr.items.empty() ||
      expr.items[0].kind != SExpr::Kind::Symbol) {
    fail(expr, "expected an operator application (OP ARGS...), got " + expr.describe());
  }
  std::vector<const LanguageOp*> forms = language_op_forms(expr.items[0].text);
  if (forms.empty()) fail(expr.items[0], "unknown operator '" + expr.items[0].text + "'");
  size_t given = expr.items.size() - 1;
  const LanguageOp* op = nullptr;
  for (const LanguageOp* form : forms) {
    size_t slots = form->slots.size();
    if (form->variadic_tensors ? given >= slots : given == slots) {
      op = form;
      break;
    }
  }
  if (op == nullptr) {
    std::string layouts;
    for (const LanguageOp* form : forms) {
      std::string layout = "(" + form->name;
      for (const Slot& slot : form->slots) layout += " " + slot.name;
      if (form->variadic_tensors) layout += "...";
      layouts += (layouts.empty() ? "" : " or ") + layout + ")";
    }
    fail(expr, "'" + forms.front()->name + "' takes " +
                   std::string(forms.front()->variadic_tensors ? "at least " : "") +
                   std::to_string(forms.front()->slots.size()) + " arguments " + layouts +
                   ", got " + std::to_string(given));
  }
  size_t slots = op->slots.size();
  Term term{Term::Kind::Apply, op, "", {}, ir::AttrKind::Int, {}, expr.location};
  for (size_t i = 0; i < given; ++i) {
    term.args.push_back(parse_slot(expr.items[i + 1], op->slots[std::min(i, slots - 1)]));
  }
  return term;
}

Term parse_slot(const SExpr& expr, const Slot& slot) {
  if (is_variable_atom(expr)) {
    Term term{slot.kind == SlotKind::Attribute ? Term::Kind::AttributeVariable
                                               : Term::Kind::TensorVariable,
              nullptr,
              expr.text.substr(1),
              {},
              slot.attr_kind,
              {},
              expr.location};
    if (slot.kind == SlotKind::Tuple) {
      fail(expr, "slot '" + slot.name + "' takes a split, not a variable");
    }
    return term;
  }
  switch (slot.kind) {
    case SlotKind::Attribute: {
      ir::AttrSpec spec{slot.name, slot.attr_kind, std::nullopt};
      return Term{Term::Kind::AttributeValue,
                  nullptr,
                  "",
                  ir::parse_attribute(expr, spec),
                  slot.attr_kind,
                  {},
                  expr.location};
    }
    case SlotKind::Tensor: {
      Term term = parse_apply(expr);
      if (term.op->kind == LanguageOpKind::Split) {
        fail(expr, "a split yields two parts: take one with split_0 or split_1");
      }
      return term;
    }
    case SlotKind::Tuple: {
      Term term = parse_apply(expr);
      if (term.op->kind != LanguageOpKind::Split) fail(expr, "split_0/split_1 take a (split ...)");
      return term;
    }
  }
  fail(expr, "unsupported slot");
}

void collect_variables(const Term& term, std::vector<const Term*>& out) {
  if (term.is_variable()) {
    bool seen = std::any_of(out.begin(), out.end(),
                            [&](const Term* t) { return t->variable == term.variable; });
    if (!seen) out.push_back(&term);
  }
  for (const Term& arg : term.args) collect_variables(arg, out);
}

}  // namespace

Term parse_term(const SExpr& expr) {
  Term term = parse_apply(expr);
  if (term.op->kind == LanguageOpKind::Split) {
    fail(expr, "a rule side must be a tensor: take a part of the split with split_0 or split_1");
  }
  return term;
}

Term parse_replacement(const SExpr& expr) {
  if (is_variable_atom(expr)) {
    return Term{Term::Kind::TensorVariable, nullptr, expr.text.substr(1), {},
                ir::AttrKind::Int,          {},      expr.location};
  }
  return parse_term(expr);
}

std::vector<const Term*> variables_of(const Term& term) {
  std::vector<const Term*> variables;
  collect_variables(term, variables);
  return variables;
}

std::string Term::to_string() const {
  switch (kind) {
    case Kind::TensorVariable:
    case Kind::AttributeVariable:
      return "?" + variable;
    case Kind::AttributeValue:
      return ir::write_attribute(value, attr_kind);
    case Kind::Constant:
      return "(constant " + ir::write_attribute(constant, ir::AttrKind::Float) + ")";
    case Kind::Apply: {
      std::string text = "(" + op->name;
      for (const Term& arg : args) text += " " + arg.to_string();
      return text + ")";
    }
  }
  return "?";
}

}  // namespace saturate::eqsat
