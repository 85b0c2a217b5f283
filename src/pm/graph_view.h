#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"
#include "pm/match_view.h"

namespace saturate::pm {

// The matcher's view of an immutable ir::Graph: every value has exactly one producer.
class GraphView {
 public:
  using Value = ir::ValueRef;
  using NodeRef = ir::NodeId;

  explicit GraphView(const ir::Graph& graph) : graph_(&graph) {}

  template <class F>
  bool for_each_producer(Value value, F&& f) const {
    return f(value.node, value.output);
  }
  ir::OpKind op(NodeRef node) const { return graph_->nodes()[node].op; }
  const ir::Attributes& attrs(NodeRef node) const { return graph_->nodes()[node].attrs; }
  size_t num_inputs(NodeRef node) const { return graph_->nodes()[node].inputs.size(); }
  Value input(NodeRef node, size_t i) const { return graph_->nodes()[node].inputs[i]; }
  const ir::TensorType& type(Value value) const {
    return graph_->nodes()[value.node].outputs[value.output];
  }
  bool same(Value a, Value b) const { return a == b; }
  std::optional<double> constant_value(NodeRef node) const {
    const ir::Node& n = graph_->nodes()[node];
    if (n.op != ir::OpKind::Constant) return std::nullopt;
    const ir::AttrValue* value = n.attrs.find("value");
    if (value == nullptr || !std::holds_alternative<double>(*value)) return std::nullopt;
    return std::get<double>(*value);
  }
  std::string describe(Value value) const { return graph_->value_name(value); }

  const ir::Graph& graph() const { return *graph_; }

 private:
  const ir::Graph* graph_;
};

static_assert(MatchView<GraphView>);

}  // namespace saturate::pm
