#include "pm/module_check.h"

#include <algorithm>

#include "ir/op_registry.h"
#include "pm/errors.h"
#include "pm/recursion_check.h"

namespace saturate::pm {

namespace {

std::string kind_name(VarKind kind) {
  return kind == VarKind::Term ? "term variable" : "op variable";
}

bool is_known_op(ir::OpKind op) {
  return static_cast<int>(op) < ir::kNumOpKinds;
}

bool is_known_expr_tag(Expr::Tag tag) {
  switch (tag) {
    case Expr::Tag::Int:
    case Expr::Tag::Float:
    case Expr::Tag::Bool:
    case Expr::Tag::String:
    case Expr::Tag::Ints:
    case Expr::Tag::List:
    case Expr::Tag::Rank:
    case Expr::Tag::Dim:
    case Expr::Tag::Numel:
    case Expr::Tag::DType:
    case Expr::Tag::OpName:
    case Expr::Tag::Attr:
    case Expr::Tag::Shape:
    case Expr::Tag::Not:
    case Expr::Tag::Proven:
    case Expr::Tag::Neg:
    case Expr::Tag::Binary:
    case Expr::Tag::In:
      return true;
  }
  return false;
}

// Number of operands each operator tag must have.
std::optional<size_t> expected_operands(Expr::Tag tag) {
  switch (tag) {
    case Expr::Tag::Dim:
    case Expr::Tag::Not:
    case Expr::Tag::Proven:
    case Expr::Tag::Neg:
      return 1;
    case Expr::Tag::Binary:
      return 2;
    case Expr::Tag::In:
    case Expr::Tag::List:
      return std::nullopt;  // In: one or more; List: any number
    default:
      return 0;
  }
}

// Walks a checked-in-memory module and throws at the first problem, naming where it is.
class ModuleChecker {
 public:
  explicit ModuleChecker(const Module& module) : module_(module) {}

  void run() {
    for (size_t d = 0; d < module_.definitions.size(); ++d) check_definition(d);
    for (const Rule& rule : module_.rules) check_rule(rule);
    if (auto problem = find_recursion_problem(module_)) {
      const Definition& definition = module_.definitions[problem->definition];
      throw PatternError(at(definition.line) + "pattern '" + definition.name +
                         "': " + problem->message);
    }
  }

 private:
  std::string at(uint32_t line) const {
    std::string file = module_.source_file.empty() ? "<module>" : module_.source_file;
    return file + ":" + std::to_string(line) + ": ";
  }

  [[noreturn]] void fail(const std::string& what) const { throw PatternError(where_ + what); }

  void check(const std::optional<std::string>& problem) const {
    if (problem) fail(*problem);
  }

  void check_definition(size_t index) {
    const Definition& definition = module_.definitions[index];
    where_ = at(definition.line) + "pattern '" + definition.name + "': ";
    if (definition.alternates.empty()) fail("has no alternates");
    for (size_t a = 0; a < definition.alternates.size(); ++a) {
      const Alternate& alternate = definition.alternates[a];
      where_ = at(alternate.line) + "pattern '" + definition.name + "', alternate " +
               std::to_string(a + 1) + ": ";
      check(check_parameters(definition, a));
      vars_ = &alternate.vars;
      check_pattern(alternate.body);
      for (const Constraint& constraint : alternate.constraints) {
        if (constraint.tag == Constraint::Tag::Guard) {
          check_expr(constraint.guard);
        } else if (constraint.tag == Constraint::Tag::Match) {
          check(check_var(*vars_, constraint.var, VarUse::TermPattern));
          check_pattern(constraint.pattern);
        } else {
          fail("unknown constraint tag");
        }
      }
    }
  }

  void check_head(const Head& head) const {
    if (head.tag == Head::Tag::Var) {
      check(check_var(*vars_, head.var, VarUse::OpHead));
    } else if (head.tag != Head::Tag::Name || !is_known_op(head.op)) {
      fail("unknown operator head");
    }
  }

  void check_pattern(const Pattern& pattern) const {
    switch (pattern.tag) {
      case Pattern::Tag::Var:
        check(check_var(*vars_, pattern.var, VarUse::TermPattern));
        return;
      case Pattern::Tag::App:
        check_head(pattern.head);
        if (pattern.head.tag == Head::Tag::Name) {
          check(check_application(pattern.head.op, pattern.args.size(), pattern.attrs));
        }
        for (const AttrExpr& attr : pattern.attrs) check_expr(attr.value);
        for (const Pattern& arg : pattern.args) check_pattern(arg);
        return;
      case Pattern::Tag::Const:
        return;
      case Pattern::Tag::Call: {
        if (pattern.callee >= module_.definitions.size()) {
          fail("calls definition " + std::to_string(pattern.callee) + ", but there are only " +
               std::to_string(module_.definitions.size()));
        }
        std::vector<CallArg::Kind> kinds;
        for (const CallArg& arg : pattern.call_args) kinds.push_back(arg.kind);
        check(check_call(module_.definitions[pattern.callee], kinds));
        for (const CallArg& arg : pattern.call_args) {
          if (arg.kind == CallArg::Kind::Pattern) {
            check_pattern(arg.pattern);
          } else {
            check_head(arg.head);
          }
        }
        return;
      }
      case Pattern::Tag::Alt:
        if (pattern.args.empty()) fail("an inline choice needs at least one option");
        for (const Pattern& option : pattern.args) check_pattern(option);
        return;
    }
    fail("unknown pattern tag");
  }

  void check_expr(const Expr& expr) const {
    if (!is_known_expr_tag(expr.tag)) fail("unknown expression tag");
    if (auto use = expr_var_use(expr.tag)) check(check_var(*vars_, expr.var, *use));
    if (expr.tag == Expr::Tag::Binary && static_cast<uint8_t>(expr.op) > kLastBinaryOp) {
      fail("unknown binary operator");
    }
    std::optional<size_t> expected = expected_operands(expr.tag);
    // A list expression may be empty (a scalar's shape); `in` needs a needle and one choice.
    if (expected ? expr.operands.size() != *expected
                 : expr.tag != Expr::Tag::List && expr.operands.empty()) {
      fail("expression has the wrong number of operands");
    }
    for (const Expr& operand : expr.operands) check_expr(operand);
  }

  void check_term(const Term& term) const {
    switch (term.tag) {
      case Term::Tag::Var:
        check(check_var(*vars_, term.var, VarUse::TermPattern));
        return;
      case Term::Tag::App:
        check_head(term.head);
        if (term.head.tag == Head::Tag::Name) {
          check(check_application(term.head.op, term.args.size(), term.attrs));
          check(check_construction(term.head.op, term.attrs));
        }
        for (const AttrExpr& attr : term.attrs) check_expr(attr.value);
        for (const Term& arg : term.args) check_term(arg);
        return;
      case Term::Tag::Const:
        return;
    }
    fail("unknown term tag");
  }

  void check_rule(const Rule& rule) {
    where_ = at(rule.line) + "rule '" + rule.name + "': ";
    if (rule.definition >= module_.definitions.size()) {
      fail("names definition " + std::to_string(rule.definition) + ", but there are only " +
           std::to_string(module_.definitions.size()));
    }
    const Definition& definition = module_.definitions[rule.definition];
    for (uint32_t param : rule.params) {
      if (param >= definition.num_params) {
        fail("names parameter " + std::to_string(param) + " of '" + definition.name +
             "', which has " + std::to_string(definition.num_params));
      }
    }
    std::vector<Var> vars = module_.rule_variables(rule);
    vars_ = &vars;
    for (const Expr& guard : rule.guards) check_expr(guard);
    check_term(rule.replacement);
    std::vector<uint32_t> replaced;
    for (const FurtherReplacement& further : rule.also) {
      if (further.var >= vars.size() || vars[further.var].kind != VarKind::Term) {
        fail("also replaces variable " + std::to_string(further.var) +
             ", which is not a term variable of the rule");
      }
      if (std::ranges::find(replaced, further.var) != replaced.end()) {
        fail("replaces '" + vars[further.var].name + "' twice");
      }
      replaced.push_back(further.var);
      check_term(further.term);
    }
    vars_ = nullptr;
  }

  const Module& module_;
  const std::vector<Var>* vars_ = nullptr;
  std::string where_;
};

}  // namespace

void check_module(const Module& module) {
  ModuleChecker(module).run();
}

std::optional<std::string> check_var(const std::vector<Var>& vars, uint32_t var, VarUse use) {
  if (var >= vars.size()) {
    return "variable " + std::to_string(var) + " does not exist (there are " +
           std::to_string(vars.size()) + ")";
  }
  const Var& v = vars[var];
  if (use == VarUse::TermPattern && v.kind != VarKind::Term) {
    return "'" + v.name + "' is an " + kind_name(v.kind) + " where a term variable is needed";
  }
  if (use == VarUse::OpHead && v.kind != VarKind::Op) {
    return "'" + v.name + "' is a " + kind_name(v.kind) + " used as an operator";
  }
  if (v.kind != VarKind::Term && v.kind != VarKind::Op) {
    return "'" + v.name + "' has an unknown variable kind";
  }
  return std::nullopt;
}

std::optional<std::string> check_application(ir::OpKind op, size_t num_inputs,
                                             const std::vector<AttrExpr>& attrs) {
  if (!is_known_op(op)) return "unknown operator";
  const ir::OpInfo& info = ir::op_info(op);
  auto count = static_cast<int64_t>(num_inputs);
  if (count < info.min_inputs ||
      (info.max_inputs != ir::OpInfo::kVariadic && count > info.max_inputs)) {
    std::string expected = std::to_string(info.min_inputs);
    if (info.max_inputs == ir::OpInfo::kVariadic) {
      expected += " or more";
    } else if (info.max_inputs != info.min_inputs) {
      expected += " to " + std::to_string(info.max_inputs);
    }
    return "operator '" + info.name + "' takes " + expected + " inputs, the pattern gives " +
           std::to_string(num_inputs);
  }
  for (const AttrExpr& attr : attrs) {
    if (info.find_attribute(attr.name) == nullptr) {
      return "operator '" + info.name + "' has no attribute '" + attr.name + "'";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_construction(ir::OpKind op, const std::vector<AttrExpr>& attrs) {
  const ir::OpInfo& info = ir::op_info(op);
  for (const ir::AttrSpec& spec : info.attributes) {
    if (spec.default_value) continue;
    bool given = std::any_of(attrs.begin(), attrs.end(),
                             [&](const AttrExpr& attr) { return attr.name == spec.name; });
    if (!given) {
      return "builds '" + info.name + "' without its required attribute '" + spec.name + "'";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_call(const Definition& callee,
                                      const std::vector<CallArg::Kind>& arg_kinds) {
  if (arg_kinds.size() != callee.num_params) {
    return "calls '" + callee.name + "' with " + std::to_string(arg_kinds.size()) +
           " arguments; it has " + std::to_string(callee.num_params) + " parameters";
  }
  if (callee.alternates.empty()) return std::nullopt;  // reported for the callee itself
  for (size_t i = 0; i < arg_kinds.size(); ++i) {
    if (i >= callee.alternates.front().vars.size()) break;  // reported for the callee itself
    bool wants_head = callee.param(i).kind == VarKind::Op;
    bool is_head = arg_kinds[i] == CallArg::Kind::Head;
    if (arg_kinds[i] != CallArg::Kind::Head && arg_kinds[i] != CallArg::Kind::Pattern) {
      return "call argument " + std::to_string(i + 1) + " has an unknown kind";
    }
    if (wants_head != is_head) {
      return "argument " + std::to_string(i + 1) + " of the call to '" + callee.name + "' is " +
             (is_head ? "an operator" : "a pattern") + ", but parameter '" + callee.param(i).name +
             "' is " + (wants_head ? "an op variable" : "a term variable");
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_parameters(const Definition& definition, size_t index) {
  const Alternate& alternate = definition.alternates[index];
  if (alternate.vars.size() < definition.num_params) {
    return "declares " + std::to_string(alternate.vars.size()) +
           " variables, fewer than the definition's " + std::to_string(definition.num_params) +
           " parameters";
  }
  for (const Var& var : alternate.vars) {
    if (var.kind != VarKind::Term && var.kind != VarKind::Op) {
      return "variable '" + var.name + "' has an unknown kind";
    }
  }
  const Alternate& first = definition.alternates.front();
  for (size_t p = 0; p < definition.num_params && p < first.vars.size(); ++p) {
    if (alternate.vars[p].kind != first.vars[p].kind) {
      return "parameter " + std::to_string(p + 1) + " ('" + alternate.vars[p].name + "') is a " +
             kind_name(alternate.vars[p].kind) + " here but a " + kind_name(first.vars[p].kind) +
             " in the first alternate";
    }
  }
  return std::nullopt;
}

std::optional<VarUse> expr_var_use(Expr::Tag tag) {
  switch (tag) {
    case Expr::Tag::Rank:
    case Expr::Tag::Dim:
    case Expr::Tag::Numel:
    case Expr::Tag::DType:
    case Expr::Tag::Shape:
      return VarUse::TermPattern;
    case Expr::Tag::OpName:
    case Expr::Tag::Attr:
      return VarUse::AnyExpr;
    default:
      return std::nullopt;
  }
}

}  // namespace saturate::pm
