// The one weight-only analysis the cost model, the oneDNN executor and ONNX export share.
#include <gtest/gtest.h>

#include <string>

#include "ir/graph_builder.h"
#include "ir/weight_only.h"

using namespace saturate::ir;

TEST(WeightOnly, WeightsConstantsAndWhatTheyAloneComputeAreKnown) {
  GraphBuilder b("known");
  ValueRef x = b.input("x", {4});
  ValueRef w = b.weight({4});
  ValueRef c = b.constant(2.0, {4});
  ValueRef folded = b.ewmul(b.sqrt(c), w);
  ValueRef y = b.ewadd(x, folded);
  b.output("y", y);
  Graph g = std::move(b).finish();
  const std::vector<bool> known = weight_only_nodes(g);
  EXPECT_TRUE(known[w.node]);
  EXPECT_TRUE(known[c.node]);
  EXPECT_TRUE(known[folded.node]);
  EXPECT_FALSE(known[x.node]);
  EXPECT_FALSE(known[y.node]);
}

TEST(WeightOnly, AnOpaqueNodeIsNeverKnownEvenOnWeights) {
  // Nothing can evaluate it before run time, so everything after it waits for run time too.
  GraphBuilder b("opaque");
  ValueRef w = b.weight({2, 3});
  ValueRef opaque =
      b.apply(OpKind::Opaque, {w},
              {{"op_type", std::string("Hardmax")}, {"output_types", std::string("f32[2 3]")}});
  ValueRef after = b.relu(opaque);
  b.output("y", after);
  Graph g = std::move(b).finish();
  const std::vector<bool> known = weight_only_nodes(g);
  EXPECT_TRUE(known[w.node]);
  EXPECT_FALSE(known[opaque.node]);
  EXPECT_FALSE(known[after.node]);
}
