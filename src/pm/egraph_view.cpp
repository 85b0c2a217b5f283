#include "pm/egraph_view.h"

#include "eqsat/tensor_analysis.h"

namespace saturate::pm {

EGraphView::EGraphView(const eqsat::TensorEGraph& egraph) : egraph_(&egraph) {
  producers_.resize(egraph.id_bound());
  for (const auto& eclass : egraph.classes()) {
    const eqsat::TensorData& data = egraph.data(eclass.id);
    if (data.kind != eqsat::TensorData::Kind::Tensor) continue;
    tensor_classes_.push_back(eclass.id);
    for (const eqsat::TensorNode& node : eclass.nodes) {
      if (!egraph.is_visible(eclass.id, node)) continue;  // on the cycle filter's list
      ViewNode view_node;
      if (node.op.kind == eqsat::TensorOp::Kind::Leaf) {
        const eqsat::LeafTensor& leaf = node.op.leaf_tensor();
        view_node.op = leaf.op;
        view_node.attrs.set("shape", leaf.type.dims);
        view_node.attrs.set("dtype", std::string(ir::to_string(leaf.type.dtype)));
        if (leaf.op == ir::OpKind::Constant) {
          view_node.attrs.set("value", leaf.value);
          view_node.constant = leaf.value;
        }
      } else if (node.op.kind == eqsat::TensorOp::Kind::Operator &&
                 node.op.op().kind == eqsat::LanguageOpKind::Operator) {
        std::vector<const eqsat::TensorData*> children;
        for (egraph::EClassId child : node.children) children.push_back(&egraph.data(child));
        eqsat::DecomposedNode decomposed = eqsat::decompose(node.op, children);
        view_node.op = *decomposed.op->ir_op;
        view_node.attrs = std::move(decomposed.attrs);
        for (size_t child : decomposed.tensor_children) {
          view_node.inputs.push_back(egraph.find(node.children[child]));
        }
      } else {
        continue;  // TENSAT's binary splits and their projections have no PyPM counterpart
      }
      producers_[eclass.id.index()].push_back(static_cast<NodeRef>(nodes_.size()));
      nodes_.push_back(std::move(view_node));
    }
  }
}

const ir::TensorType& EGraphView::type(Value value) const {
  const eqsat::TensorData& data = egraph_->data(value);
  return data.kind == eqsat::TensorData::Kind::Tensor ? data.info.type : no_tensor_;
}

}  // namespace saturate::pm
