#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "egraph/enode.h"
#include "egraph/sexpr.h"
#include "egraph/symbol.h"
#include "support/error.h"

namespace saturate::egraph {

// A ground expression stored flat (egg's RecExpr): each node's children are indices of earlier
// nodes, and the last node is the root. Shared subterms may be stored once.
//
//   Term<Symbol> term = Term<Symbol>::parse("(+ a (* b 2))");
//   term.to_string();  // "(+ a (* b 2))"
template <Operator Op>
class Term {
 public:
  using Node = ENode<Op>;

  // Reads a term; labels go through Op::parse(text, arity). Throws saturate::ParseError on
  // syntax errors, unknown operators and pattern variables.
  static Term parse(std::string_view text) { return from_sexpr(parse_application_text(text)); }
  static Term from_sexpr(const SExpr& expression) {
    Term term;
    term.add_sexpr(expression);
    return term;
  }

  // Appends a node whose children are indices of nodes already in the term; returns its index.
  EClassId add(Node node) {
    for (EClassId child : node.children) {
      if (child.index() >= nodes_.size()) {
        throw Error("Term::add: child index " + std::to_string(child.value()) +
                    " does not name an earlier node");
      }
    }
    nodes_.push_back(std::move(node));
    return EClassId(nodes_.size() - 1);
  }

  const std::vector<Node>& nodes() const { return nodes_; }
  bool empty() const { return nodes_.empty(); }
  std::size_t size() const { return nodes_.size(); }
  EClassId root() const { return EClassId(nodes_.size() - 1); }
  const Node& operator[](EClassId index) const { return nodes_[index.index()]; }

  std::string to_string() const { return empty() ? std::string() : to_string(root()); }
  std::string to_string(EClassId index) const {
    const Node& node = nodes_[index.index()];
    std::string text = quote_label(node.op.to_string());
    if (node.is_leaf()) return text;
    text = "(" + text;
    for (EClassId child : node.children) text += " " + to_string(child);
    return text + ")";
  }

  friend bool operator==(const Term& a, const Term& b) { return a.nodes_ == b.nodes_; }

 private:
  EClassId add_sexpr(const SExpr& expression) {
    const Application app = application(expression);
    if (!app.is_list && is_variable_name(app.op)) {
      throw ParseError(expression.location, "a term cannot contain the pattern variable '" +
                                                std::string(app.op) + "'; use a Pattern");
    }
    ChildList children;
    for (const SExpr& item : app.args) children.push_back(add_sexpr(item));
    std::optional<Op> op = Op::parse(app.op, children.size());
    if (!op) {
      throw ParseError(expression.location, "unknown operator '" + std::string(app.op) + "' with " +
                                                std::to_string(children.size()) + " children");
    }
    return add(Node(std::move(*op), std::move(children)));
  }

  std::vector<Node> nodes_;
};

}  // namespace saturate::egraph
