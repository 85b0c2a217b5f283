#include <gtest/gtest.h>

#include "ir/graph_builder.h"
#include "ir/text_format.h"
#include "support/error.h"

using namespace saturate::ir;

TEST(Graph, BuildsAndInfersShapes) {
  GraphBuilder b("tiny");
  ValueRef x = b.input("x", {8, 16});
  ValueRef h = b.matmul(x, b.weight({16, 32}), Activation::Relu);
  auto parts = b.split(h, 1, {16, 16});
  b.output("y", parts[0]);
  Graph g = std::move(b).finish();
  EXPECT_EQ(g.type(h).dims, (Dims{8, 32}));
  EXPECT_EQ(g.type(parts[1]).dims, (Dims{8, 16}));
  EXPECT_EQ(g.num_operators(), 2u);
}

TEST(Graph, ShapeErrorNamesNodeAndShapes) {
  GraphBuilder b("bad");
  ValueRef x = b.input("x", {8, 16});
  ValueRef w = b.weight({15, 32});
  try {
    b.matmul(x, w);
    FAIL() << "expected a shape error";
  } catch (const saturate::Error& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("matmul"), std::string::npos) << message;
    EXPECT_NE(message.find("[8 16]"), std::string::npos) << message;
    EXPECT_NE(message.find("[15 32]"), std::string::npos) << message;
  }
}
