#include <gtest/gtest.h>

#include "eqsat/cycle_filter.h"
#include "eqsat/graph_conversion.h"
#include "ir/graph_builder.h"

using namespace saturate;
using namespace saturate::eqsat;

namespace {

struct Chain {
  TensorEGraph egraph;
  EClassId x, relu, tanh;
};

// x -> relu(x) -> tanh(relu(x)), in an e-graph.
void build_chain(Chain& chain) {
  ir::GraphBuilder b("chain");
  ir::ValueRef x = b.input("x", {2, 3});
  ir::ValueRef r = b.relu(x);
  b.output("y", b.tanh(r));
  ir::Graph graph = std::move(b).finish();
  GraphRoot root = add_graph(chain.egraph, graph);
  chain.tanh = root.root;
  const TensorNode& tanh_node = chain.egraph.eclass(chain.tanh).nodes.front();
  chain.relu = tanh_node.children[0];
  chain.x = chain.egraph.eclass(chain.relu).nodes.front().children[0];
}

}  // namespace

TEST(CycleFilter, ReachabilityFollowsChildren) {
  for (CycleFilterMode mode : {CycleFilterMode::Vanilla, CycleFilterMode::Efficient}) {
    Chain chain;
    build_chain(chain);
    CycleFilter filter(mode);
    filter.attach(chain.egraph);
    filter.begin_iteration(chain.egraph);
    EXPECT_TRUE(filter.reaches(chain.egraph, chain.tanh, chain.x)) << to_string(mode);
    EXPECT_TRUE(filter.reaches(chain.egraph, chain.relu, chain.x)) << to_string(mode);
    EXPECT_FALSE(filter.reaches(chain.egraph, chain.x, chain.tanh)) << to_string(mode);
    EXPECT_FALSE(filter.reaches(chain.egraph, chain.relu, chain.tanh)) << to_string(mode);
  }
}

TEST(CycleFilter, PostPassHidesOneNodeOfEachCycle) {
  Chain chain;
  build_chain(chain);
  CycleFilter filter(CycleFilterMode::Efficient);
  filter.attach(chain.egraph);
  filter.begin_iteration(chain.egraph);
  // Claiming x = tanh(relu(x)) closes a cycle x -> relu -> tanh -> x.
  chain.egraph.merge(chain.x, chain.tanh);
  chain.egraph.rebuild();
  EXPECT_EQ(filter.remove_cycles(chain.egraph), 1u);
  EXPECT_EQ(filter.filtered_count(), 1u);
  // The e-graph is acyclic again and the leaf x is still there to extract.
  EXPECT_EQ(filter.remove_cycles(chain.egraph), 0u);
  bool leaf_visible = false;
  for (const TensorNode& node : chain.egraph.eclass(chain.x).nodes) {
    if (node.op.kind == TensorOp::Kind::Leaf) leaf_visible = chain.egraph.is_visible(chain.x, node);
  }
  EXPECT_TRUE(leaf_visible);
}
