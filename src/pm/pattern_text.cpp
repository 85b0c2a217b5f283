#include "pm/pattern_text.h"

#include "ir/op_registry.h"
#include "support/strings.h"

namespace saturate::pm {

namespace {

std::string var_name(const std::vector<Var>& vars, uint32_t var) {
  return var < vars.size() ? vars[var].name : "v" + std::to_string(var);
}

std::string quoted(const std::string& text) {
  return "\"" + text + "\"";
}

std::string ints_text(const std::vector<int64_t>& values) {
  return "[" + join_ints(values) + "]";
}

int precedence(const Expr& expr) {
  if (expr.tag == Expr::Tag::Not) return 2;
  if (expr.tag == Expr::Tag::In) return 3;
  if (expr.tag != Expr::Tag::Binary) return 10;
  switch (expr.op) {
    case BinaryOp::Or:
      return 0;
    case BinaryOp::And:
      return 1;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 3;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 4;
    default:
      return 5;
  }
}

std::string operand_text(const Expr& operand, int parent_precedence, const std::vector<Var>& vars) {
  std::string text = to_string(operand, vars);
  return precedence(operand) <= parent_precedence ? "(" + text + ")" : text;
}

std::string attrs_text(const std::vector<AttrExpr>& attrs, const std::vector<Var>& vars) {
  std::string text;
  for (const AttrExpr& attr : attrs) text += ", " + attr.name + "=" + to_string(attr.value, vars);
  return text;
}

std::string output_text(uint32_t output_index) {
  return output_index == 0 ? "" : "[" + std::to_string(output_index) + "]";
}

}  // namespace

std::string to_string(BinaryOp op) {
  static const char* const kSymbols[] = {
      "+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"};
  auto index = static_cast<size_t>(op);
  return index < std::size(kSymbols) ? kSymbols[index] : "?";
}

std::string to_string(const Expr& expr, const std::vector<Var>& vars) {
  std::string var = var_name(vars, expr.var);
  switch (expr.tag) {
    case Expr::Tag::Int:
      return std::to_string(expr.int_value);
    case Expr::Tag::Float:
      return format_double(expr.float_value);
    case Expr::Tag::Bool:
      return expr.bool_value ? "True" : "False";
    case Expr::Tag::String:
      return quoted(expr.text);
    case Expr::Tag::Ints:
      return ints_text(expr.ints);
    case Expr::Tag::List: {
      std::string items;
      for (const Expr& item : expr.operands) {
        items += (items.empty() ? "" : ", ") + to_string(item, vars);
      }
      return "[" + items + "]";
    }
    case Expr::Tag::Rank:
      return var + ".shape.rank";
    case Expr::Tag::Dim:
      return var + ".shape[" + (expr.operands.empty() ? "?" : to_string(expr.operands[0], vars)) +
             "]";
    case Expr::Tag::Numel:
      return var + ".shape.numel";
    case Expr::Tag::DType:
      return var + ".dtype";
    case Expr::Tag::OpName:
      return var + (expr.var < vars.size() && vars[expr.var].kind == VarKind::Op ? ".name" : ".op");
    case Expr::Tag::Attr:
      return var + ".attrs." + expr.text;
    case Expr::Tag::Shape:
      return var + ".shape";
    case Expr::Tag::Not:
      return expr.operands.empty() ? "not ?" : "not " + operand_text(expr.operands[0], 2, vars);
    case Expr::Tag::Proven:
      return expr.operands.empty() ? "proven(?)"
                                   : "proven(" + to_string(expr.operands[0], vars) + ")";
    case Expr::Tag::Neg:
      return expr.operands.empty() ? "-?" : "-" + operand_text(expr.operands[0], 9, vars);
    case Expr::Tag::Binary: {
      if (expr.operands.size() != 2) return "?";
      int p = precedence(expr);
      // Comparisons do not chain the Python way here; parenthesize nested ones.
      return operand_text(expr.operands[0], p - 1, vars) + " " + to_string(expr.op) + " " +
             operand_text(expr.operands[1], p, vars);
    }
    case Expr::Tag::In: {
      if (expr.operands.empty()) return "?";
      std::string options;
      for (size_t i = 1; i < expr.operands.size(); ++i) {
        options += (i > 1 ? ", " : "") + to_string(expr.operands[i], vars);
      }
      if (expr.operands.size() == 2) options += ",";
      return operand_text(expr.operands[0], 3, vars) + " in (" + options + ")";
    }
  }
  return "?";
}

std::string to_string(const Head& head, const std::vector<Var>& vars) {
  if (head.tag == Head::Tag::Var) return var_name(vars, head.var);
  return std::string(ir::to_string(head.op));
}

std::string to_string(const Pattern& pattern, const std::vector<Var>& vars, const Module& module) {
  switch (pattern.tag) {
    case Pattern::Tag::Var:
      return var_name(vars, pattern.var);
    case Pattern::Tag::App: {
      std::string args;
      for (const Pattern& arg : pattern.args) {
        args += (args.empty() ? "" : ", ") + to_string(arg, vars, module);
      }
      std::string attrs = attrs_text(pattern.attrs, vars);
      if (args.empty() && !attrs.empty()) attrs = attrs.substr(2);
      return to_string(pattern.head, vars) + "(" + args + attrs + ")" +
             output_text(pattern.output_index);
    }
    case Pattern::Tag::Const:
      return format_double(pattern.value);
    case Pattern::Tag::Call: {
      std::string name = pattern.callee < module.definitions.size()
                             ? module.definitions[pattern.callee].name
                             : "#" + std::to_string(pattern.callee);
      std::string args;
      for (const CallArg& arg : pattern.call_args) {
        args += (args.empty() ? "" : ", ") + (arg.kind == CallArg::Kind::Head
                                                  ? to_string(arg.head, vars)
                                                  : to_string(arg.pattern, vars, module));
      }
      return name + "(" + args + ")";
    }
    case Pattern::Tag::Alt: {
      std::string options;
      for (const Pattern& option : pattern.args) {
        options += (options.empty() ? "" : " || ") + to_string(option, vars, module);
      }
      return "(" + options + ")";
    }
  }
  return "?";
}

std::string to_string(const Term& term, const std::vector<Var>& vars) {
  switch (term.tag) {
    case Term::Tag::Var:
      return var_name(vars, term.var);
    case Term::Tag::App: {
      std::string args;
      for (const Term& arg : term.args) args += (args.empty() ? "" : ", ") + to_string(arg, vars);
      std::string attrs = attrs_text(term.attrs, vars);
      if (args.empty() && !attrs.empty()) attrs = attrs.substr(2);
      return to_string(term.head, vars) + "(" + args + attrs + ")" + output_text(term.output_index);
    }
    case Term::Tag::Const:
      return format_double(term.value);
  }
  return "?";
}

std::string source_position(const Module& module, uint32_t line) {
  return (module.source_file.empty() ? "<module>" : module.source_file) + ":" +
         std::to_string(line);
}

}  // namespace saturate::pm
