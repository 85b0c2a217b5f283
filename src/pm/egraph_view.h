#pragma once

// The matcher's view of the tensor e-graph: a value is an e-class, and every visible operator or
// leaf e-node in it is one producer (a choice point). Attribute slots are folded back into
// ir::Attributes, so PyPM patterns see the same operators and attributes as on an ir::Graph.
// TENSAT's binary splits have no PyPM counterpart: a part of a split is seen as a `slice` of the
// tensor it was cut from, and of every tensor along the chain of splits on the same axis above
// it (an n-way split is a chain of binary splits), so patterns match split parts as slices.
// Built on a clean e-graph; valid until the e-graph changes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eqsat/tensor_egraph.h"
#include "ir/attribute.h"
#include "ir/tensor_type.h"
#include "pm/match_view.h"

namespace saturate::pm {

class EGraphView {
 public:
  using Value = egraph::EClassId;
  using NodeRef = uint32_t;

  explicit EGraphView(const eqsat::TensorEGraph& egraph);

  template <class F>
  bool for_each_producer(Value value, F&& f) const {
    size_t index = egraph_->find(value).index();
    if (index >= producers_.size()) return false;
    for (NodeRef node : producers_[index]) {
      if (f(node, uint32_t{0})) return true;
    }
    return false;
  }
  ir::OpKind op(NodeRef node) const { return nodes_[node].op; }
  const ir::Attributes& attrs(NodeRef node) const { return nodes_[node].attrs; }
  size_t num_inputs(NodeRef node) const { return nodes_[node].inputs.size(); }
  Value input(NodeRef node, size_t i) const { return nodes_[node].inputs[i]; }
  const ir::TensorType& type(Value value) const;
  bool same(Value a, Value b) const { return egraph_->find(a) == egraph_->find(b); }
  std::optional<double> constant_value(NodeRef node) const { return nodes_[node].constant; }
  std::string describe(Value value) const {
    return "e-class " + std::to_string(egraph_->find(value).value());
  }

  // The canonical classes that hold tensors, in id order (where a search starts).
  const std::vector<Value>& tensor_classes() const { return tensor_classes_; }
  size_t num_producers() const { return nodes_.size(); }

 private:
  struct ViewNode {
    ir::OpKind op = ir::OpKind::Input;
    ir::Attributes attrs;
    std::vector<Value> inputs;
    std::optional<double> constant;
  };

  // Adds the slices that a split part is (see above) to `part`'s producers.
  void add_split_part_slices(egraph::EClassId part, const eqsat::TensorNode& projection);

  const eqsat::TensorEGraph* egraph_;
  std::vector<ViewNode> nodes_;
  std::vector<std::vector<NodeRef>> producers_;  // by class index
  std::vector<Value> tensor_classes_;
  ir::TensorType no_tensor_;  // what type() answers for a class that is not a tensor
};

static_assert(MatchView<EGraphView>);

}  // namespace saturate::pm
