#pragma once

// A small C++ vocabulary for writing Modules by hand (tests, C++-defined patterns):
//
//   using namespace saturate::pm::build;
//   enum { x, y };  // variable indices of the alternate
//   Module m;
//   m.definitions.push_back(definition("TransposedProduct", 2, {alternate(
//       {term("x"), term("y")},
//       app("matmul", {app("transpose", {v(x)}, {{"perm", ints({1, 0})}}),
//                      app("transpose", {v(y)}, {{"perm", ints({1, 0})}})}),
//       {guard(eq(rank(x), integer(2)))})}));
//
// Nothing is checked here; check_module() or a write/read round trip does that.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op_registry.h"
#include "pm/core.h"
#include "support/error.h"

namespace saturate::pm::build {

// ---- Expressions ----
inline Expr integer(int64_t value) {
  Expr e;
  e.tag = Expr::Tag::Int;
  e.int_value = value;
  return e;
}
inline Expr real(double value) {
  Expr e;
  e.tag = Expr::Tag::Float;
  e.float_value = value;
  return e;
}
inline Expr boolean(bool value) {
  Expr e;
  e.tag = Expr::Tag::Bool;
  e.bool_value = value;
  return e;
}
inline Expr text(std::string value) {
  Expr e;
  e.tag = Expr::Tag::String;
  e.text = std::move(value);
  return e;
}
inline Expr ints(std::vector<int64_t> values) {
  Expr e;
  e.tag = Expr::Tag::Ints;
  e.ints = std::move(values);
  return e;
}
inline Expr list(std::vector<Expr> items) {
  Expr e;
  e.tag = Expr::Tag::List;
  e.operands = std::move(items);
  return e;
}
inline Expr var_expr(Expr::Tag tag, uint32_t var) {
  Expr e;
  e.tag = tag;
  e.var = var;
  return e;
}
inline Expr rank(uint32_t var) {
  return var_expr(Expr::Tag::Rank, var);
}
inline Expr dim(uint32_t var, Expr index) {
  Expr e = var_expr(Expr::Tag::Dim, var);
  e.operands.push_back(std::move(index));
  return e;
}
inline Expr numel(uint32_t var) {
  return var_expr(Expr::Tag::Numel, var);
}
inline Expr dtype(uint32_t var) {
  return var_expr(Expr::Tag::DType, var);
}
inline Expr op_name(uint32_t var) {
  return var_expr(Expr::Tag::OpName, var);
}
inline Expr attr(uint32_t var, std::string name) {
  Expr e = var_expr(Expr::Tag::Attr, var);
  e.text = std::move(name);
  return e;
}
inline Expr shape(uint32_t var) {
  return var_expr(Expr::Tag::Shape, var);
}
inline Expr unary(Expr::Tag tag, Expr operand) {
  Expr e;
  e.tag = tag;
  e.operands.push_back(std::move(operand));
  return e;
}
inline Expr not_(Expr operand) {
  return unary(Expr::Tag::Not, std::move(operand));
}
inline Expr proven(Expr operand) {
  return unary(Expr::Tag::Proven, std::move(operand));
}
inline Expr neg(Expr operand) {
  return unary(Expr::Tag::Neg, std::move(operand));
}
inline Expr binary(BinaryOp op, Expr lhs, Expr rhs) {
  Expr e;
  e.tag = Expr::Tag::Binary;
  e.op = op;
  e.operands.push_back(std::move(lhs));
  e.operands.push_back(std::move(rhs));
  return e;
}
inline Expr in(Expr needle, std::vector<Expr> options) {
  Expr e;
  e.tag = Expr::Tag::In;
  e.operands.push_back(std::move(needle));
  for (Expr& option : options) e.operands.push_back(std::move(option));
  return e;
}
inline Expr add(Expr a, Expr b) {
  return binary(BinaryOp::Add, std::move(a), std::move(b));
}
inline Expr sub(Expr a, Expr b) {
  return binary(BinaryOp::Sub, std::move(a), std::move(b));
}
inline Expr mul(Expr a, Expr b) {
  return binary(BinaryOp::Mul, std::move(a), std::move(b));
}
inline Expr div(Expr a, Expr b) {
  return binary(BinaryOp::Div, std::move(a), std::move(b));
}
inline Expr eq(Expr a, Expr b) {
  return binary(BinaryOp::Eq, std::move(a), std::move(b));
}
inline Expr ne(Expr a, Expr b) {
  return binary(BinaryOp::Ne, std::move(a), std::move(b));
}
inline Expr lt(Expr a, Expr b) {
  return binary(BinaryOp::Lt, std::move(a), std::move(b));
}
inline Expr le(Expr a, Expr b) {
  return binary(BinaryOp::Le, std::move(a), std::move(b));
}
inline Expr gt(Expr a, Expr b) {
  return binary(BinaryOp::Gt, std::move(a), std::move(b));
}
inline Expr ge(Expr a, Expr b) {
  return binary(BinaryOp::Ge, std::move(a), std::move(b));
}
inline Expr and_(Expr a, Expr b) {
  return binary(BinaryOp::And, std::move(a), std::move(b));
}
inline Expr or_(Expr a, Expr b) {
  return binary(BinaryOp::Or, std::move(a), std::move(b));
}

// ---- Heads ----
inline Head head(std::string_view op_name) {
  std::optional<ir::OpKind> op = ir::find_op(op_name);
  if (!op) throw Error("pm::build: unknown operator '" + std::string(op_name) + "'");
  return Head{Head::Tag::Name, *op, 0};
}
inline Head head_var(uint32_t var) {
  return Head{Head::Tag::Var, ir::OpKind::Input, var};
}

// ---- Patterns ----
inline Pattern v(uint32_t var) {
  Pattern p;
  p.tag = Pattern::Tag::Var;
  p.var = var;
  return p;
}
inline Pattern app(Head h, std::vector<Pattern> args, std::vector<AttrExpr> attrs = {},
                   uint32_t output_index = 0) {
  Pattern p;
  p.tag = Pattern::Tag::App;
  p.head = h;
  p.args = std::move(args);
  p.attrs = std::move(attrs);
  p.output_index = output_index;
  return p;
}
inline Pattern app(std::string_view op_name, std::vector<Pattern> args,
                   std::vector<AttrExpr> attrs = {}, uint32_t output_index = 0) {
  return app(head(op_name), std::move(args), std::move(attrs), output_index);
}
inline Pattern constant(double value) {
  Pattern p;
  p.tag = Pattern::Tag::Const;
  p.value = value;
  return p;
}
inline CallArg arg(Pattern pattern) {
  return CallArg{CallArg::Kind::Pattern, std::move(pattern), {}};
}
inline CallArg arg(Head h) {
  return CallArg{CallArg::Kind::Head, {}, h};
}
inline Pattern call(uint32_t definition, std::vector<CallArg> args) {
  Pattern p;
  p.tag = Pattern::Tag::Call;
  p.callee = definition;
  p.call_args = std::move(args);
  return p;
}
inline Pattern alt(std::vector<Pattern> options) {
  Pattern p;
  p.tag = Pattern::Tag::Alt;
  p.args = std::move(options);
  return p;
}

// ---- Definitions ----
inline Var term(std::string name) {
  return Var{std::move(name), VarKind::Term};
}
inline Var op(std::string name) {
  return Var{std::move(name), VarKind::Op};
}
inline Constraint guard(Expr e, uint32_t line = 0) {
  Constraint c;
  c.tag = Constraint::Tag::Guard;
  c.line = line;
  c.guard = std::move(e);
  return c;
}
inline Constraint match(uint32_t var, Pattern pattern, uint32_t line = 0) {
  Constraint c;
  c.tag = Constraint::Tag::Match;
  c.line = line;
  c.var = var;
  c.pattern = std::move(pattern);
  return c;
}
inline Alternate alternate(std::vector<Var> vars, Pattern body,
                           std::vector<Constraint> constraints = {}, uint32_t line = 0) {
  return Alternate{line, std::move(vars), std::move(body), std::move(constraints)};
}
inline Definition definition(std::string name, uint32_t num_params,
                             std::vector<Alternate> alternates, uint32_t line = 0) {
  return Definition{std::move(name), line, num_params, std::move(alternates)};
}

// ---- Rules ----
inline Term tv(uint32_t var) {
  Term t;
  t.tag = Term::Tag::Var;
  t.var = var;
  return t;
}
inline Term tapp(Head h, std::vector<Term> args, std::vector<AttrExpr> attrs = {},
                 uint32_t output_index = 0) {
  Term t;
  t.tag = Term::Tag::App;
  t.head = h;
  t.args = std::move(args);
  t.attrs = std::move(attrs);
  t.output_index = output_index;
  return t;
}
inline Term tapp(std::string_view op_name, std::vector<Term> args, std::vector<AttrExpr> attrs = {},
                 uint32_t output_index = 0) {
  return tapp(head(op_name), std::move(args), std::move(attrs), output_index);
}
inline Term tconst(double value) {
  Term t;
  t.tag = Term::Tag::Const;
  t.value = value;
  return t;
}
inline Rule rule(std::string name, uint32_t definition, std::vector<uint32_t> params,
                 Term replacement, std::vector<Expr> guards = {}, uint32_t line = 0) {
  return Rule{.name = std::move(name),
              .definition = definition,
              .line = line,
              .params = std::move(params),
              .guards = std::move(guards),
              .replacement = std::move(replacement),
              .also = {}};
}

}  // namespace saturate::pm::build
