#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/enode.h"
#include "egraph/sexpr.h"
#include "egraph/symbol.h"
#include "support/error.h"

namespace saturate::egraph {

// One entry of a pattern: a variable, or a label applied to earlier entries (egg's ENodeOrVar).
template <Operator Op>
struct PatternNode {
  std::optional<Var> var;  // set for variables; `node` is then unused
  ENode<Op> node;          // children are indices of earlier entries

  bool is_var() const { return var.has_value(); }
};

// A pattern's syntax tree stored flat, root last. Patterns are usually parsed from text
// (Pattern::parse); this is the builder for code that constructs them directly:
//
//   PatternAst<Symbol> ast;
//   EClassId a = ast.add_var(Var("?a"));
//   ast.add_node(Symbol("+"), {a, ast.add_node(Symbol("0"))});   // (+ ?a 0)
template <Operator Op>
class PatternAst {
 public:
  static PatternAst parse(std::string_view text) {
    return from_sexpr(parse_application_text(text));
  }
  // Atoms that start with '?' are variables; other atoms are labels with no children (ground
  // leaves such as a literal or an attribute constant), matched as nodes.
  static PatternAst from_sexpr(const SExpr& expression) {
    PatternAst ast;
    ast.add_sexpr(expression);
    return ast;
  }

  EClassId add_var(Var var) {
    entries_.push_back(PatternNode<Op>{var, {}});
    return last();
  }
  EClassId add_node(Op op, ChildList children = {}) {
    for (EClassId child : children) {
      if (child.index() >= entries_.size()) {
        throw Error("PatternAst::add_node: child index " + std::to_string(child.value()) +
                    " does not name an earlier entry");
      }
    }
    entries_.push_back(
        PatternNode<Op>{std::nullopt, ENode<Op>(std::move(op), std::move(children))});
    return last();
  }

  const std::vector<PatternNode<Op>>& entries() const { return entries_; }
  const PatternNode<Op>& operator[](EClassId index) const { return entries_[index.index()]; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  EClassId root() const { return last(); }

  std::string to_string() const { return empty() ? std::string() : to_string(root()); }
  std::string to_string(EClassId index) const {
    const PatternNode<Op>& entry = entries_[index.index()];
    if (entry.is_var()) return std::string(entry.var->name());
    std::string text = quote_label(entry.node.op.to_string());
    if (entry.node.is_leaf()) return text;
    text = "(" + text;
    for (EClassId child : entry.node.children) text += " " + to_string(child);
    return text + ")";
  }

 private:
  EClassId last() const { return EClassId(entries_.size() - 1); }

  EClassId add_sexpr(const SExpr& expression) {
    const Application app = application(expression);
    if (is_variable_name(app.op)) {
      if (app.is_list) {
        throw ParseError(expression.location, "'" + std::string(app.op) +
                                                  "' cannot be an operator: variables stand "
                                                  "for e-classes, not labels");
      }
      return add_var(Var(app.op));
    }
    ChildList children;
    for (const SExpr& item : app.args) children.push_back(add_sexpr(item));
    std::optional<Op> op = Op::parse(app.op, children.size());
    if (!op) {
      throw ParseError(expression.location, "unknown operator '" + std::string(app.op) + "' with " +
                                                std::to_string(children.size()) + " children");
    }
    return add_node(std::move(*op), std::move(children));
  }

  std::vector<PatternNode<Op>> entries_;
};

}  // namespace saturate::egraph
