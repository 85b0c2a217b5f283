#include "eqsat/extraction_bridge.h"

#include <unordered_map>

#include "eqsat/tensor_info.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::eqsat {

double node_cost(const TensorEGraph& egraph, const TensorNode& node, const cost::CostModel& model) {
  if (node.op.kind != TensorOp::Kind::Operator) return 0;
  const LanguageOp& op = node.op.op();
  if (is_projection(op) || op.ir_op == ir::OpKind::Noop) return 0;
  std::vector<const TensorData*> children;
  for (EClassId child : node.children) children.push_back(&egraph.data(child));
  DecomposedNode parts = decompose(node.op, children);
  std::vector<ir::TensorType> inputs;
  bool all_known = true;
  for (size_t index : parts.tensor_children) {
    inputs.push_back(children[index]->info.type);
    all_known = all_known && children[index]->known;
  }
  // Computed from weights only: folded at compile time (opaque operators never are).
  if (all_known && op.ir_op != ir::OpKind::Opaque) return 0;
  std::vector<ir::TensorType> outputs;
  ir::Attributes attrs;
  if (op.kind == LanguageOpKind::Split) {
    int64_t axis = parts.attrs.get_int("axis");
    int64_t cut = parts.attrs.get_int("cut");
    attrs = ir::Attributes{{"axis", axis}, {"sizes", split_sizes(inputs[0], axis, cut)}};
  } else {
    attrs = parts.attrs;
  }
  attrs = ir::complete_attributes(ir::op_info(*op.ir_op), attrs);
  outputs = ir::infer_types(*op.ir_op, inputs, attrs);
  return model.op_cost(cost::OpConfig{*op.ir_op, attrs, inputs, outputs});
}

ExtractionView make_extraction_view(const TensorEGraph& egraph, EClassId root,
                                    const cost::CostModel& model) {
  ExtractionView view;
  std::unordered_map<uint32_t, extract::ClassIndex> index;
  std::vector<EClassId> queue;  // classes in discovery order
  auto class_index = [&](EClassId id) {
    id = egraph.find(id);
    auto [it, inserted] = index.emplace(id.value(), view.classes.size());
    if (inserted) {
      view.classes.push_back(id);
      view.graph.add_class("e" + std::to_string(id.value()));
      queue.push_back(id);
    }
    return it->second;
  };
  class_index(root);
  for (size_t next = 0; next < queue.size(); ++next) {
    EClassId id = queue[next];
    extract::ClassIndex eclass = index.at(id.value());
    auto add = [&](const TensorNode& node, bool filtered) {
      std::vector<extract::ClassIndex> children;
      for (EClassId child : node.children) {
        if (egraph.data(child).kind == TensorData::Kind::Attribute) continue;
        children.push_back(class_index(child));
      }
      const extract::NodeIndex n =
          view.graph.add_node(eclass, node.op.to_string(), std::move(children),
                              filtered ? 0.0 : node_cost(egraph, node, model));
      view.graph.filtered[n] = filtered;
      view.nodes.push_back(node);
    };
    bool any_visible = false;
    for (const TensorNode& node : egraph.eclass(id).nodes) {
      if (!egraph.is_visible(id, node)) continue;
      add(node, false);
      any_visible = true;
    }
    // A class whose nodes the cycle filter hid all keeps them, marked filtered (never chosen,
    // cost 0): egraph-serialize names a class through its nodes, so an empty one cannot be
    // written.
    if (!any_visible) {
      for (const TensorNode& node : egraph.eclass(id).nodes) add(node, true);
    }
  }
  view.graph.roots.push_back(0);
  return view;
}

Choice choice_of(const ExtractionView& view, const extract::ExtractionResult& result) {
  if (!result.found) throw Error("the extractor found no complete choice (" + result.status + ")");
  Choice choice;
  for (extract::ClassIndex c = 0; c < view.classes.size(); ++c) {
    extract::NodeIndex node = result.chosen(c);
    if (node != extract::kNoNode) choice.emplace(view.classes[c].value(), view.nodes[node]);
  }
  return choice;
}

}  // namespace saturate::eqsat
