#pragma once

// The rewriter's working copy of a graph: nodes whose inputs can be redirected, use lists, and
// alive flags. New nodes are appended, so node ids are not a topological order;
// topological_order() and to_graph() compute one.

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "pm/match_view.h"

namespace saturate::pm {

class MutableGraph {
 public:
  struct Use {
    ir::NodeId user;
    uint32_t input;
  };
  struct Node {
    ir::OpKind op;
    ir::Attributes attrs;  // complete, as in ir::Graph
    std::vector<ir::ValueRef> inputs;
    std::vector<ir::TensorType> outputs;
    std::vector<std::string> names;
    std::vector<std::vector<Use>> uses;  // per output
    std::vector<uint32_t> output_refs;   // per output: how many graph outputs name it
    bool alive = true;
  };

  explicit MutableGraph(const ir::Graph& graph);

  const Node& node(ir::NodeId id) const { return nodes_[id]; }
  size_t num_nodes() const { return nodes_.size(); }
  bool alive(ir::NodeId id) const { return nodes_[id].alive; }
  const ir::TensorType& type(ir::ValueRef value) const {
    return nodes_[value.node].outputs[value.output];
  }
  // Uses by nodes plus graph outputs.
  size_t num_uses(ir::ValueRef value) const;
  // Whether `value` is computed (transitively) from some output of node `ancestor`.
  bool depends_on(ir::ValueRef value, ir::NodeId ancestor) const;

  // Appends a node with complete attributes and inferred output types; names are fresh.
  ir::NodeId add_node(ir::OpKind op, std::vector<ir::ValueRef> inputs, ir::Attributes attrs,
                      std::vector<ir::TensorType> outputs);

  // Points every use of `from` by a node older than `first_new_node`, and every graph output
  // naming `from`, at `to`. Newer nodes (the replacement being installed) keep using `from`.
  void replace_uses(ir::ValueRef from, ir::ValueRef to, ir::NodeId first_new_node);

  // Removes the node when nothing uses it (graph inputs always stay), then every input that
  // this leaves unused, transitively.
  void remove_if_unused(ir::NodeId id);

  // Alive nodes, every input before its users; original nodes keep their relative order.
  std::vector<ir::NodeId> topological_order() const;

  // A valid ir::Graph of the alive nodes (shape-checked again by ir::Graph::add_node).
  ir::Graph to_graph() const;

 private:
  std::string fresh_name(const std::string& prefix);
  void remove_use(ir::ValueRef value, Use use);

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<ir::GraphOutput> outputs_;
  std::unordered_set<std::string> used_names_;
};

// The matcher's view of a MutableGraph (one producer per value).
class MutableGraphView {
 public:
  using Value = ir::ValueRef;
  using NodeRef = ir::NodeId;

  explicit MutableGraphView(const MutableGraph& graph) : graph_(&graph) {}

  template <class F>
  bool for_each_producer(Value value, F&& f) const {
    return f(value.node, value.output);
  }
  ir::OpKind op(NodeRef node) const { return graph_->node(node).op; }
  const ir::Attributes& attrs(NodeRef node) const { return graph_->node(node).attrs; }
  size_t num_inputs(NodeRef node) const { return graph_->node(node).inputs.size(); }
  Value input(NodeRef node, size_t i) const { return graph_->node(node).inputs[i]; }
  const ir::TensorType& type(Value value) const { return graph_->type(value); }
  bool same(Value a, Value b) const { return a == b; }
  std::optional<double> constant_value(NodeRef node) const;
  std::string describe(Value value) const { return graph_->node(value.node).names[value.output]; }

 private:
  const MutableGraph* graph_;
};

static_assert(MatchView<MutableGraphView>);

}  // namespace saturate::pm
