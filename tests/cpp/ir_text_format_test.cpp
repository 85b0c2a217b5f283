#include <gtest/gtest.h>

#include "ir/dot_writer.h"
#include "ir/graph_builder.h"
#include "ir/text_format.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::ir;

namespace {

Graph sample_graph() {
  GraphBuilder b("sample");
  ValueRef x = b.input("x", {1, 4, 8, 8});
  ValueRef c = b.conv(x, 8, 3, 3, 2, Padding::Same, Activation::Relu, 2);
  ValueRef p = b.poolavg(c, 2, 2, 2, 2, Padding::Valid);
  auto parts = b.split(p, 1, {3, 5});
  ValueRef joined = b.concat(1, {parts[1], parts[0]});
  ValueRef flat = b.reshape(joined, {1, -1});
  ValueRef scaled = b.div(flat, b.constant(0.1, {}));
  ValueRef w = b.weight({32, 10}, "odd name; with \"quotes\"");
  b.output("logits", b.matmul(scaled, w, Activation::Tanh));
  b.output(":colon", parts[0]);
  return std::move(b).finish();
}

// Parses text expected to fail and returns the error.
ParseError parse_failure(const std::string& text) {
  try {
    parse_text(text, "bad.sxp");
  } catch (const ParseError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a parse error for:\n" << text;
  return ParseError({}, "none");
}

}  // namespace

TEST(TextFormat, RoundTripIsExact) {
  Graph graph = sample_graph();
  std::string text = write_text(graph);
  Graph parsed = parse_text(text);
  EXPECT_TRUE(parsed == graph) << text;
  EXPECT_EQ(write_text(parsed), text);
}

TEST(TextFormat, FloatsRoundTripBitExactly) {
  GraphBuilder b("floats");
  ValueRef x = b.input("x", {2});
  b.output("y", b.clip(x, -0.1 / 3.0, 1e-300));
  Graph graph = std::move(b).finish();
  Graph parsed = parse_text(write_text(graph));
  const Node& clip = parsed.node(parsed.find_value("t1")->node);
  EXPECT_EQ(clip.attrs.get_float("min"), -0.1 / 3.0);
  EXPECT_EQ(clip.attrs.get_float("max"), 1e-300);
}

TEST(TextFormat, WritesDefaultsImplicitlyAndReadsThem) {
  Graph graph = parse_text(R"((graph g
    (node x (input :shape [2 3]))   ; a comment
    (node w (weight :shape [3 4]))
    (node y (matmul x w))
    (output out y)))");
  EXPECT_EQ(graph.node(2).attrs.get_activation(), Activation::None);
  EXPECT_EQ(graph.type(graph.outputs()[0].value).dims, (Dims{2, 4}));
  EXPECT_EQ(write_text(graph).find(":activation"), std::string::npos);
}

TEST(TextFormat, ErrorsCarryLineAndColumn) {
  ParseError unknown =
      parse_failure("(graph g\n  (node x (input :shape [2]))\n  (node y (frobnicate x)))");
  EXPECT_EQ(unknown.location().line, 3);
  EXPECT_EQ(unknown.location().column, 12);
  EXPECT_NE(std::string(unknown.what()).find("bad.sxp:3:12"), std::string::npos) << unknown.what();
  EXPECT_NE(std::string(unknown.what()).find("frobnicate"), std::string::npos);

  ParseError unclosed = parse_failure("(graph g\n  (node x (input :shape [2])");
  EXPECT_EQ(unclosed.location().line, 2);  // the innermost form left open
  EXPECT_NE(std::string(unclosed.what()).find("unclosed"), std::string::npos);

  ParseError undefined = parse_failure("(graph g\n (node y (relu x)))");
  EXPECT_NE(std::string(undefined.what()).find("'x' is not defined"), std::string::npos);
  EXPECT_EQ(undefined.location().line, 2);
}

TEST(TextFormat, RejectsBadInput) {
  const char* cases[] = {
      "",
      "(graph)",
      "(graph g) (graph h)",
      "(graph g (node x (input)))",                                     // missing :shape
      "(graph g (node x (input :shape [2 0])))",                        // non-positive dimension
      "(graph g (node x (input :shape [2] :shape [3])))",               // repeated attribute
      "(graph g (node x (input :shape 2)))",                            // wrong attribute kind
      "(graph g (node x (input :shape [2] :stride 1)))",                // unknown attribute
      "(graph g (node x (input :shape [2])) (node x (relu x)))",        // duplicate name
      "(graph g (node x (input :shape [2])) (node y (relu x x)))",      // arity
      "(graph g (node x (input :shape [2 3])) (node (a b) (relu x)))",  // output count
      "(graph g (node x (input :shape [1 2 4 4])) (node y (poolmax x :kernel_h 2 :kernel_w 2 "
      ":padding middle)))",
      "(graph g (node x (input :shape [2])) (output y z))",
      "(graph g (node x (input :shape [2])) (output y x) (output y x))",
      "(graph g (node x (input :shape [2])) (edge x))",
      "(graph g \"unterminated)",
      "(graph g (node x (input :shape [2]))))",
  };
  for (const char* text : cases) {
    EXPECT_THROW(parse_text(text), ParseError) << text;
  }
}

TEST(TextFormat, ShapeErrorsPointAtTheNode) {
  ParseError error = parse_failure(
      "(graph g\n (node x (input :shape [2 3]))\n (node w (weight :shape [4 5]))\n"
      " (node y (matmul x w)))");
  EXPECT_EQ(error.location().line, 4);
  EXPECT_NE(std::string(error.what()).find("[2 3]"), std::string::npos) << error.what();
}

TEST(DotWriter, DescribesEveryNodeAndEdge) {
  Graph graph = sample_graph();
  std::string dot = write_dot(graph);
  EXPECT_EQ(dot.rfind("digraph \"sample\" {", 0), 0u);
  EXPECT_NE(dot.find("conv2d"), std::string::npos);
  EXPECT_NE(dot.find("activation=relu"), std::string::npos);
  EXPECT_NE(dot.find("[1 8 4 4]"), std::string::npos);
  EXPECT_NE(dot.find("doubleoctagon"), std::string::npos);
  EXPECT_NE(dot.find("odd name; with \\\"quotes\\\""), std::string::npos);
  size_t edges = 0;
  for (size_t pos = dot.find("->"); pos != std::string::npos; pos = dot.find("->", pos + 2))
    ++edges;
  size_t expected = graph.outputs().size();
  for (const Node& node : graph.nodes()) expected += node.inputs.size();
  EXPECT_EQ(edges, expected);
}

// 100,000 open parentheses overflowed the stack of the recursive reader (issue 15); the
// reader's own limit is tested in support_sexpr_test.cpp.
TEST(TextFormat, RejectsNestingDeeperThanTheLimit) {
  ParseError graph =
      parse_failure("(graph g\n" + std::string(100000, '(') + std::string(100000, ')') + ")");
  EXPECT_NE(std::string(graph.what()).find("nesting deeper"), std::string::npos) << graph.what();
  EXPECT_EQ(graph.location().line, 2);
}
