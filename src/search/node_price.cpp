#include "search/node_price.h"

#include <vector>

#include "eqsat/tensor_info.h"
#include "ir/op_registry.h"

namespace saturate::search {

double node_price(const eqsat::TensorEGraph& egraph, const eqsat::TensorNode& node,
                  const cost::CostModel& model) {
  if (node.op.kind != eqsat::TensorOp::Kind::Operator) return 0;
  const eqsat::LanguageOp& op = node.op.op();
  if (eqsat::is_projection(op) || op.ir_op == ir::OpKind::Noop) return 0;
  std::vector<const eqsat::TensorData*> children;
  children.reserve(node.children.size());
  for (eqsat::EClassId child : node.children) children.push_back(&egraph.data(child));
  eqsat::DecomposedNode parts = eqsat::decompose(node.op, children);
  std::vector<ir::TensorType> inputs;
  for (size_t index : parts.tensor_children) inputs.push_back(children[index]->info.type);
  ir::Attributes attrs = parts.attrs;
  if (op.kind == eqsat::LanguageOpKind::Split) {
    // The graph's split says where it cuts by the sizes of its parts.
    int64_t axis = parts.attrs.get_int("axis");
    int64_t cut = parts.attrs.get_int("cut");
    attrs = ir::Attributes{{"axis", axis}, {"sizes", eqsat::split_sizes(inputs.at(0), axis, cut)}};
  }
  attrs = ir::complete_attributes(ir::op_info(*op.ir_op), attrs);
  std::vector<ir::TensorType> outputs = ir::infer_types(*op.ir_op, inputs, attrs);
  return model.op_cost(cost::OpConfig{*op.ir_op, attrs, inputs, outputs});
}

}  // namespace saturate::search
