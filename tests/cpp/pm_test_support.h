// Patterns shared by the PyPM back-end tests: the examples of docs/PYPM.md §1, built with
// pm::build (as the Python front end would write them into a .pmb).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "pm/builder.h"
#include "pm/core.h"

namespace saturate::pm::testing_support {

// Definition indices of example_module().
enum ExampleDefinition : uint32_t {
  kTransposedProduct = 0,
  kHalf = 1,
  kUnaryChain = 2,
  kBinaryTree = 3,
};

// TransposedProduct(x, y) with its rule, Half(x) (two alternates), UnaryChain(x, f) with a rule
// collapsing the chain to f(x), and BinaryTree(x, f) := x where x <= f(y, z).
inline Module example_module() {
  using namespace build;
  enum { x, y };
  enum { f = 1 };
  Module m;
  m.source_file = "rules.py";
  AttrExpr perm{"perm", ints({1, 0})};
  m.definitions.push_back(definition(
      "TransposedProduct", 2,
      {alternate(
          {term("x"), term("y")},
          app("matmul", {app("transpose", {v(x)}, {perm}), app("transpose", {v(y)}, {perm})}),
          {guard(eq(rank(x), integer(2)), 5), guard(eq(rank(y), integer(2)), 5)}, 4)},
      3));
  m.definitions.push_back(
      definition("Half", 1,
                 {alternate({term("x")}, app("div", {v(x), constant(2.0)}), {}, 11),
                  alternate({term("x")}, app("mul", {v(x), constant(0.5)}), {}, 14)},
                 10));
  m.definitions.push_back(definition(
      "UnaryChain", 2,
      {alternate({term("x"), op("f")},
                 app(head_var(f), {call(kUnaryChain, {arg(v(x)), arg(head_var(f))})}), {}, 18),
       alternate({term("x"), op("f")}, app(head_var(f), {v(x)}), {}, 21)},
      17));
  m.definitions.push_back(
      definition("BinaryTree", 2,
                 {alternate({term("x"), op("f"), term("y"), term("z")}, v(0),
                            {match(0, app(head_var(1), {v(2), v(3)}), 26)}, 24)},
                 23));
  m.rules.push_back(rule("product_of_transposes", kTransposedProduct, {0, 1},
                         tapp("transpose", {tapp("matmul", {tv(1), tv(0)})}, {perm}), {}, 8));
  m.rules.push_back(
      rule("collapse_chain", kUnaryChain, {0, 1}, tapp(head_var(1), {tv(0)}), {}, 30));
  return m;
}

// x, relu(x), relu(relu(x)), ... with `length` relus; the output "y" is the last one.
inline ir::Graph relu_chain(int length, ir::Dims dims = {4, 4}) {
  ir::Graph graph("chain");
  ir::ValueRef value = graph.add_input("a", dims);
  for (int i = 0; i < length; ++i) {
    value = {graph.add_node(ir::OpKind::Relu, {value}, {}, {"r" + std::to_string(i + 1)}), 0};
  }
  graph.add_output("y", value);
  return graph;
}

// A pre-norm block: s = x + skip (2, 4, 8) feeds a layernorm and the next residual add,
// out = s + relu(layernorm(s)).
inline ir::Graph pre_norm_block() {
  ir::Graph graph("pre_norm");
  ir::ValueRef x = graph.add_input("x", {2, 4, 8});
  ir::ValueRef skip = graph.add_input("skip", {2, 4, 8});
  ir::ValueRef s = {graph.add_node(ir::OpKind::EwAdd, {x, skip}, {}, {"s"}), 0};
  ir::ValueRef g = graph.add_weight("g", {8});
  ir::ValueRef b = graph.add_weight("b", {8});
  ir::ValueRef y = {graph.add_node(ir::OpKind::LayerNorm, {s, g, b}, {}, {"y"}), 0};
  ir::ValueRef r = {graph.add_node(ir::OpKind::Relu, {y}, {}, {"r"}), 0};
  graph.add_output("out", {graph.add_node(ir::OpKind::EwAdd, {s, r}, {}, {"out"}), 0});
  return graph;
}

// PreNorm(s, x, skip, g, b) = layernorm(s, g, b) where s <= ewadd(x, skip), and a rule that
// replaces the norm with output 0 of skip_layer_norm(x, skip, g, b) and, further, s with its
// output 1.
inline Module skip_layer_norm_module() {
  using namespace build;
  Module m;
  m.definitions.push_back(definition(
      "PreNorm", 5,
      {alternate({term("s"), term("x"), term("skip"), term("g"), term("b")},
                 app("layernorm", {v(0), v(3), v(4)}), {match(0, app("ewadd", {v(1), v(2)}))})}));
  Term fused = tapp("skip_layer_norm", {tv(1), tv(2), tv(3), tv(4)});
  Rule fuse = rule("fuse", 0, {0, 1, 2, 3, 4}, fused);
  fused.output_index = 1;
  fuse.also.push_back({0, fused});
  m.rules.push_back(std::move(fuse));
  return m;
}

}  // namespace saturate::pm::testing_support
