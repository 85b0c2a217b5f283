#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "pm/builder.h"
#include "pm/declarative_matcher.h"
#include "pm/errors.h"
#include "pm/graph_view.h"
#include "pm/matcher.h"
#include "pm/module_check.h"
#include "pm_test_support.h"

using namespace saturate;
using namespace saturate::pm;
using namespace saturate::pm::build;
using testing_support::example_module;
using testing_support::relu_chain;

namespace {

// Runs both matchers on every value; they must agree (the property test does this at scale).
class Fixture {
 public:
  Fixture(Module module, ir::Graph graph)
      : module_(std::move(module)), graph_(std::move(graph)), view_(graph_) {
    check_module(module_);
  }

  std::optional<Match> first(uint32_t definition, const std::string& value,
                             MatchOptions options = {}) const {
    Matcher<GraphView> matcher(module_, view_, options);
    return matcher.match_first(definition, at(value));
  }

  std::vector<Match> all(uint32_t definition, const std::string& value) const {
    Matcher<GraphView> matcher(module_, view_);
    std::vector<Match> matches;
    matcher.match_all(definition, at(value), [&](const Match& m) {
      matches.push_back(m);
      return false;
    });
    std::vector<Match> declarative = match_declaratively(module_, graph_, definition, at(value));
    for (const Match& m : matches) {
      EXPECT_NE(std::find(declarative.begin(), declarative.end(), m), declarative.end());
    }
    EXPECT_EQ(matches.empty(), declarative.empty());
    return matches;
  }

  ir::ValueRef at(const std::string& name) const {
    std::optional<ir::ValueRef> value = graph_.find_value(name);
    EXPECT_TRUE(value.has_value()) << name;
    return value.value_or(ir::ValueRef{});
  }
  std::string name(ir::ValueRef value) const { return graph_.value_name(value); }
  const ir::Graph& graph() const { return graph_; }

 private:
  Module module_;
  ir::Graph graph_;
  GraphView view_;
};

Module one(std::string name, uint32_t params, std::vector<Alternate> alternates) {
  Module m;
  m.source_file = "test.py";
  m.definitions.push_back(definition(std::move(name), params, std::move(alternates), 1));
  return m;
}

ir::Graph small_graph() {
  ir::Graph g("small");
  auto a = g.add_input("a", {4, 4});
  auto b = g.add_input("b", {4, 4});
  auto v = g.add_input("v", {4});
  auto aa = ir::ValueRef{g.add_node(ir::OpKind::MatMul, {a, a}, {}, {"aa"}), 0};
  g.add_node(ir::OpKind::MatMul, {a, b}, {}, {"ab"});
  g.add_node(ir::OpKind::MatMul, {a, b}, {{"activation", int64_t{2}}}, {"ab_relu"});
  auto two = ir::ValueRef{
      g.add_node(ir::OpKind::Constant, {}, {{"shape", ir::Dims{}}, {"value", 2.0000001}}, {"two"}),
      0};
  auto half = ir::ValueRef{
      g.add_node(ir::OpKind::Constant, {}, {{"shape", ir::Dims{}}, {"value", 0.5}}, {"half"}), 0};
  auto other = ir::ValueRef{
      g.add_node(ir::OpKind::Constant, {}, {{"shape", ir::Dims{}}, {"value", 2.01}}, {"other"}), 0};
  g.add_node(ir::OpKind::Div, {aa, two}, {}, {"div2"});
  g.add_node(ir::OpKind::Mul, {aa, half}, {}, {"mul_half"});
  g.add_node(ir::OpKind::Div, {aa, other}, {}, {"div_other"});
  g.add_node(ir::OpKind::Add, {a, v}, {}, {"bias"});
  auto r = ir::ValueRef{g.add_node(ir::OpKind::Relu, {a}, {}, {"ra"}), 0};
  g.add_node(ir::OpKind::Tanh, {r}, {}, {"tra"});
  g.add_node(ir::OpKind::Transpose, {a}, {{"perm", std::vector<int64_t>{1, 0}}}, {"ta"});
  g.add_node(ir::OpKind::Split, {a}, {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{1, 3}}},
             {"s0", "s1"});
  return g;
}

}  // namespace

TEST(Matcher, NonlinearVariablesMustBindTheSameValue) {
  Fixture f(one("Square", 1, {alternate({term("x")}, app("matmul", {v(0), v(0)}))}), small_graph());
  auto match = f.first(0, "aa");
  ASSERT_TRUE(match);
  EXPECT_EQ(f.name(match->value(0)), "a");
  EXPECT_FALSE(f.first(0, "ab"));
  EXPECT_EQ(f.all(0, "aa").size(), 1u);
}

TEST(Matcher, TriesAlternatesInOrder) {
  Module m = example_module();
  Fixture f(m, small_graph());
  auto by_div = f.first(testing_support::kHalf, "div2");
  ASSERT_TRUE(by_div);
  EXPECT_EQ(by_div->alternate, 0u);
  EXPECT_EQ(f.name(by_div->value(0)), "aa");
  auto by_mul = f.first(testing_support::kHalf, "mul_half");
  ASSERT_TRUE(by_mul);
  EXPECT_EQ(by_mul->alternate, 1u);
  EXPECT_FALSE(f.first(testing_support::kHalf, "div_other"));  // 2.01 is not 2
}

TEST(Matcher, ConstantsMatchWithRelativeTolerance) {
  Fixture f(one("Two", 0, {alternate({}, constant(2.0))}), small_graph());
  EXPECT_TRUE(f.first(0, "two"));     // 2.0000001: within 1e-6
  EXPECT_FALSE(f.first(0, "other"));  // 2.01
  EXPECT_FALSE(f.first(0, "a"));
}

TEST(Matcher, ALaterConstraintFailureRetriesEarlierChoices) {
  // Inner(x) := x | relu(x); Outer(y) := Inner(y) where y.op == "input".
  // At ra = relu(a): Inner's first alternate binds y = ra, the guard fails, and matching must
  // backtrack into Inner to try its second alternate (y = a).
  Module m;
  m.definitions.push_back(definition(
      "Inner", 1, {alternate({term("x")}, v(0)), alternate({term("x")}, app("relu", {v(0)}))}));
  m.definitions.push_back(definition(
      "Outer", 1,
      {alternate({term("y")}, call(0, {arg(v(0))}), {guard(eq(op_name(0), text("input")))})}));
  // The same with an inline choice.
  m.definitions.push_back(definition("Inline", 1,
                                     {alternate({term("y")}, alt({v(0), app("relu", {v(0)})}),
                                                {guard(eq(op_name(0), text("input")))})}));
  Fixture f(m, small_graph());
  for (uint32_t d : {1u, 2u}) {
    auto match = f.first(d, "ra");
    ASSERT_TRUE(match) << d;
    EXPECT_EQ(f.name(match->value(0)), "a");
    EXPECT_FALSE(f.first(d, "tra"));
  }
  // All matches of Inner at ra: x = ra, then x = a.
  auto all = f.all(0, "ra");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(f.name(all[0].value(0)), "ra");
  EXPECT_EQ(f.name(all[1].value(0)), "a");
}

TEST(Matcher, RecursivePatternsMatchChains) {
  Fixture f(example_module(), relu_chain(3));
  auto match = f.first(testing_support::kUnaryChain, "r3");
  ASSERT_TRUE(match);
  EXPECT_EQ(f.name(match->value(0)), "a");  // the recursive alternate is tried first
  EXPECT_EQ(match->symbol(1).kind, ir::OpKind::Relu);
  auto all = f.all(testing_support::kUnaryChain, "r3");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(f.name(all[0].value(0)), "a");
  EXPECT_EQ(f.name(all[1].value(0)), "r1");
  EXPECT_EQ(f.name(all[2].value(0)), "r2");
  EXPECT_FALSE(f.first(testing_support::kUnaryChain, "a"));
}

TEST(Matcher, OpVariablesBindKindAndAttributes) {
  ir::Graph g("ops");
  auto a = g.add_input("a", {4, 4});
  auto r = ir::ValueRef{g.add_node(ir::OpKind::Relu, {a}, {}, {"r"}), 0};
  g.add_node(ir::OpKind::Tanh, {r}, {}, {"tr"});
  auto m1 =
      ir::ValueRef{g.add_node(ir::OpKind::MatMul, {a, a}, {{"activation", int64_t{2}}}, {"m1"}), 0};
  g.add_node(ir::OpKind::MatMul, {m1, a}, {{"activation", int64_t{0}}}, {"m2"});
  g.add_node(ir::OpKind::MatMul, {m1, a}, {{"activation", int64_t{2}}}, {"m3"});
  // Twice(x, f) := f(f(x, x), x) for binary f; Nested(x, f, g) := f(g(x)).
  Module m;
  m.definitions.push_back(definition(
      "Twice", 2,
      {alternate({term("x"), op("f")}, app(head_var(1), {app(head_var(1), {v(0), v(0)}), v(0)}))}));
  m.definitions.push_back(definition(
      "Nested", 3,
      {alternate({term("x"), op("f"), op("g")}, app(head_var(1), {app(head_var(2), {v(0)})}),
                 {guard(ne(op_name(1), op_name(2)))})}));
  // Chain of relus only: UnaryChain called with a fixed head.
  Module chain = example_module();
  Fixture f(m, g);
  EXPECT_FALSE(f.first(0, "m2"));  // the inner matmul has another activation
  auto twice = f.first(0, "m3");
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->symbol(1).kind, ir::OpKind::MatMul);
  EXPECT_EQ(twice->symbol(1).attrs.get_activation(), ir::Activation::Relu);
  auto nested = f.first(1, "tr");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->symbol(1).kind, ir::OpKind::Tanh);
  EXPECT_EQ(nested->symbol(2).kind, ir::OpKind::Relu);
  EXPECT_FALSE(f.first(1, "r"));
}

TEST(Matcher, CallsWithAFixedHeadArgument) {
  // Relus(x) := UnaryChain(x, relu)
  Module m = example_module();
  m.definitions.push_back(
      definition("Relus", 1,
                 {alternate({term("x")},
                            call(testing_support::kUnaryChain, {arg(v(0)), arg(head("relu"))}))}));
  uint32_t relus = 4;
  ir::Graph g = relu_chain(2);
  ir::ValueRef top = g.outputs()[0].value;
  g.add_node(ir::OpKind::Tanh, {top}, {}, {"t"});
  Fixture f(m, g);
  auto match = f.first(relus, "r2");
  ASSERT_TRUE(match);
  EXPECT_EQ(f.name(match->value(0)), "a");
  EXPECT_FALSE(f.first(relus, "t"));
  EXPECT_TRUE(f.first(testing_support::kUnaryChain, "t"));
}

TEST(Matcher, MatchConstraintsAndLocalVariables) {
  Fixture f(example_module(), small_graph());
  auto match = f.first(testing_support::kBinaryTree, "ab");
  ASSERT_TRUE(match);
  EXPECT_EQ(f.name(match->value(0)), "ab");  // x is the root, not a leaf
  EXPECT_EQ(match->symbol(1).kind, ir::OpKind::MatMul);
  EXPECT_FALSE(f.first(testing_support::kBinaryTree, "ra"));  // unary
  EXPECT_FALSE(f.first(testing_support::kBinaryTree, "a"));   // a leaf
}

TEST(Matcher, EveryVariableMustBeBound) {
  // P(x, y) := relu(x): y is never bound, so nothing matches.
  Fixture f(one("P", 2, {alternate({term("x"), term("y")}, app("relu", {v(0)}))}), small_graph());
  EXPECT_FALSE(f.first(0, "ra"));
}

TEST(Matcher, AttributeConstraints) {
  Module m;
  m.definitions.push_back(definition(
      "T", 1, {alternate({term("x")}, app("transpose", {v(0)}, {{"perm", ints({1, 0})}}))}));
  m.definitions.push_back(
      definition("Fused", 2,
                 {alternate({term("x"), term("y")},
                            app("matmul", {v(0), v(1)}, {{"activation", text("relu")}}))}));
  m.definitions.push_back(
      definition("Plain", 2,
                 {alternate({term("x"), term("y")},
                            app("matmul", {v(0), v(1)}, {{"activation", integer(0)}}))}));
  Fixture f(m, small_graph());
  EXPECT_TRUE(f.first(0, "ta"));
  EXPECT_TRUE(f.first(1, "ab_relu"));
  EXPECT_FALSE(f.first(1, "ab"));
  EXPECT_TRUE(f.first(2, "ab"));  // an enumeration by its code
  EXPECT_FALSE(f.first(2, "ab_relu"));
}

TEST(Matcher, OutputIndices) {
  Module m;
  m.definitions.push_back(definition(
      "Second", 1, {alternate({term("x")}, app("split", {v(0)}, {{"axis", integer(0)}}, 1))}));
  Fixture f(m, small_graph());
  EXPECT_TRUE(f.first(0, "s1"));
  EXPECT_FALSE(f.first(0, "s0"));
}

TEST(Matcher, GuardsOnShapesTypesAttributesAndOperators) {
  auto with_guard = [](Expr e) {
    return one("G", 1,
               {alternate({term("x")}, app("matmul", {v(0), v(0)}), {guard(std::move(e), 7)})});
  };
  ir::Graph g = small_graph();
  auto holds = [&](Expr e, const std::string& at) {
    Fixture f(with_guard(std::move(e)), g);
    return f.first(0, at).has_value();
  };
  EXPECT_TRUE(holds(eq(rank(0), integer(2)), "aa"));
  EXPECT_FALSE(holds(eq(rank(0), integer(3)), "aa"));
  EXPECT_TRUE(holds(eq(dim(0, integer(-1)), integer(4)), "aa"));
  EXPECT_TRUE(holds(eq(dim(0, integer(0)), integer(4)), "aa"));
  EXPECT_TRUE(holds(eq(numel(0), integer(16)), "aa"));
  EXPECT_TRUE(holds(eq(shape(0), ints({4, 4})), "aa"));
  EXPECT_TRUE(holds(eq(dtype(0), text("f32")), "aa"));
  EXPECT_FALSE(holds(eq(dtype(0), text("f64")), "aa"));
  EXPECT_TRUE(holds(eq(op_name(0), text("input")), "aa"));
  EXPECT_TRUE(holds(in(op_name(0), {text("relu"), text("input")}), "aa"));
  EXPECT_FALSE(holds(in(op_name(0), {text("relu"), text("tanh")}), "aa"));
  EXPECT_TRUE(holds(eq(attr(0, "dtype"), text("f32")), "aa"));  // input's own attribute
  // x.op and x.attrs of a produced value: Sq(x) := x where x <= matmul(y, y).
  Module produced = one("Sq", 1,
                        {alternate({term("x"), term("y")}, v(0),
                                   {match(0, app("matmul", {v(1), v(1)})),
                                    guard(eq(attr(0, "activation"), text("none"))),
                                    guard(eq(op_name(0), text("matmul")))})});
  Fixture f(produced, g);
  EXPECT_TRUE(f.first(0, "aa"));
  // The op variable's name and attributes.
  Module named = one("F", 2,
                     {alternate({term("x"), op("f")}, app(head_var(1), {v(0), v(0)}),
                                {guard(eq(op_name(1), text("matmul"))),
                                 guard(eq(attr(1, "activation"), text("none")))})});
  Fixture fn(named, g);
  EXPECT_TRUE(fn.first(0, "aa"));
}

TEST(Matcher, GuardOnAMissingAttributeIsAnError) {
  Module m =
      one("G", 1,
          {alternate({term("x"), term("y")}, v(0),
                     {match(0, app("relu", {v(1)})), guard(eq(attr(0, "perm"), ints({1, 0})), 12)},
                     11)});
  Fixture f(m, small_graph());
  try {
    f.first(0, "ra");
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("test.py:12: pattern 'G', alternate 1"), std::string::npos) << message;
    EXPECT_NE(message.find("'relu' has no attribute 'perm'"), std::string::npos) << message;
  }
  EXPECT_FALSE(f.first(0, "a"));  // the match constraint fails first: no error
}

TEST(Matcher, GuardOnAnUnboundVariableIsAnError) {
  // P(x, y) := relu(x) where y.shape.rank == 2 (y is bound only after the guard).
  Module m = one("P", 2,
                 {alternate({term("x"), term("y")}, app("relu", {v(0)}),
                            {guard(eq(rank(1), integer(2)), 3), match(1, v(0))})});
  Fixture f(m, small_graph());
  try {
    f.first(0, "ra");
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("'y' is not bound"), std::string::npos)
        << error.what();
  }
}

TEST(Matcher, RecursionDepthIsLimited) {
  Fixture f(example_module(), relu_chain(200));
  EXPECT_TRUE(f.first(testing_support::kUnaryChain, "r200"));
  try {
    f.first(testing_support::kUnaryChain, "r200", {.max_call_depth = 50});
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("recursion deeper than 50 nested calls"),
              std::string::npos)
        << error.what();
  }
}

TEST(Matcher, TheDefaultDepthLimitIsReachableWithoutOverflowingTheStack) {
  // The continuation style nests C++ frames for the whole match; a long chain continues on
  // fresh stacks, so the limit that applies is the documented 10,000 nested calls.
  Fixture ok(example_module(), relu_chain(9990));
  auto match = ok.first(testing_support::kUnaryChain, "r9990");
  ASSERT_TRUE(match);
  EXPECT_EQ(ok.name(match->value(0)), "a");
  Fixture too_deep(example_module(), relu_chain(10001));
  try {
    too_deep.first(testing_support::kUnaryChain, "r10001");
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("recursion deeper than 10000 nested calls"),
              std::string::npos)
        << error.what();
  }
}

TEST(Matcher, SwitchesToFreshStacksTransparently) {
  // Small stack segments: the match hops to a new stack every few dozen levels (more often
  // under sanitizers), in both directions of the continuation chain, and errors thrown there
  // come back as they are.
  Fixture f(example_module(), relu_chain(100));
  MatchOptions options{.max_call_depth = 10000, .stack_segment_bytes = 96 << 10};
  auto match = f.first(testing_support::kUnaryChain, "r100", options);
  ASSERT_TRUE(match);
  EXPECT_EQ(f.name(match->value(0)), "a");
  options.max_call_depth = 90;
  try {
    f.first(testing_support::kUnaryChain, "r100", options);
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("deeper than 90"), std::string::npos) << error.what();
  }
  // Too many switches is an error, not a crash.
  Fixture deep(example_module(), relu_chain(3000));
  options = {.max_call_depth = 10000, .stack_segment_bytes = 16 << 10};
  try {
    deep.first(testing_support::kUnaryChain, "r3000", options);
    ADD_FAILURE() << "no error";
  } catch (const PatternError& error) {
    EXPECT_NE(std::string(error.what()).find("ran out of stack"), std::string::npos)
        << error.what();
  }
}

TEST(Matcher, RootIndexSkipsHopelessDefinitions) {
  Module m = example_module();
  ir::Graph g = small_graph();
  GraphView view(g);
  Matcher<GraphView> matcher(m, view);
  const RootIndex& index = matcher.root_index();
  EXPECT_TRUE(index.accepts(testing_support::kTransposedProduct, ir::OpKind::MatMul));
  EXPECT_FALSE(index.accepts(testing_support::kTransposedProduct, ir::OpKind::Relu));
  EXPECT_TRUE(index.accepts(testing_support::kHalf, ir::OpKind::Div));
  EXPECT_TRUE(index.accepts(testing_support::kHalf, ir::OpKind::Mul));
  EXPECT_FALSE(index.accepts(testing_support::kHalf, ir::OpKind::Add));
  EXPECT_TRUE(index.accepts(testing_support::kUnaryChain, ir::OpKind::Sigmoid));  // f(...)
  EXPECT_TRUE(index.accepts(testing_support::kBinaryTree, ir::OpKind::Input));    // x
  EXPECT_FALSE(matcher.may_match(testing_support::kHalf, *g.find_value("ra")));
}

TEST(Matcher, MatchAllStopsWhenAsked) {
  Fixture f(example_module(), relu_chain(5));
  GraphView view(f.graph());
  Module m = example_module();
  Matcher<GraphView> matcher(m, view);
  int seen = 0;
  matcher.match_all(testing_support::kUnaryChain, f.at("r5"),
                    [&](const Match&) { return ++seen == 2; });
  EXPECT_EQ(seen, 2);
}
