#include "pm/egraph_view.h"

#include <algorithm>
#include <tuple>
#include <variant>

#include "eqsat/dim_facts.h"
#include "eqsat/tensor_analysis.h"
#include "ir/symbolic_dim.h"

namespace saturate::pm {
namespace {

// One binary split a split part comes from: its input, axis and the part's range on that axis.
struct SplitPart {
  egraph::EClassId input;
  int64_t axis = 0;
  int64_t start = 0;
  int64_t end = 0;
};

// The splits `projection` (split_0 or split_1 of a tuple class) takes a part of.
std::vector<SplitPart> split_parts(const eqsat::TensorEGraph& egraph, egraph::EClassId part,
                                   const eqsat::TensorNode& projection) {
  std::vector<SplitPart> parts;
  // The part's own type must agree (a split whose analysis failed is not looked through).
  const eqsat::TensorData& own = egraph.data(part);
  if (own.kind != eqsat::TensorData::Kind::Tensor) return parts;
  egraph::EClassId tuple = projection.children[0];
  for (const eqsat::TensorNode& split : egraph.eclass(tuple).nodes) {
    if (split.op.kind != eqsat::TensorOp::Kind::Operator ||
        split.op.op().kind != eqsat::LanguageOpKind::Split || !egraph.is_visible(tuple, split)) {
      continue;
    }
    const eqsat::TensorData& input = egraph.data(split.children[2]);
    if (input.kind != eqsat::TensorData::Kind::Tensor) continue;
    const ir::Dims& dims = input.info.type.dims;
    const auto* axis_value = std::get_if<int64_t>(&egraph.data(split.children[0]).attribute);
    const auto* cut_value = std::get_if<int64_t>(&egraph.data(split.children[1]).attribute);
    if (axis_value == nullptr || cut_value == nullptr) continue;
    int64_t axis = *axis_value;
    const int64_t cut = *cut_value;
    if (axis < 0) axis += static_cast<int64_t>(dims.size());
    if (axis < 0 || axis >= static_cast<int64_t>(dims.size())) continue;
    bool first = projection.op.op().projection == 0;
    const int64_t size = dims[static_cast<size_t>(axis)];
    // Offsets are dims (ir/symbolic_dim.h): a cut may be symbolic (`past`), so the part's range
    // is checked in dim arithmetic, for every value of the symbols.
    if (!eqsat::cut_inside(cut, size)) continue;
    SplitPart found{egraph.find(split.children[2]), axis, first ? 0 : cut, first ? cut : size};
    if (own.info.type.dims.size() != dims.size() ||
        own.info.type.dims[static_cast<size_t>(axis)] !=
            ir::dim_difference(found.end, found.start)) {
      continue;
    }
    parts.push_back(found);
  }
  return parts;
}

bool is_split_projection(const eqsat::TensorNode& node) {
  return node.op.kind == eqsat::TensorOp::Kind::Operator &&
         node.op.op().kind == eqsat::LanguageOpKind::SplitProjection;
}

}  // namespace

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
        if (is_split_projection(node)) add_split_part_slices(eclass.id, node);
        continue;  // output projections: a multi-output operator is matched through its tuple
      }
      producers_[eclass.id.index()].push_back(static_cast<NodeRef>(nodes_.size()));
      nodes_.push_back(std::move(view_node));
    }
  }
}

void EGraphView::add_split_part_slices(egraph::EClassId part, const eqsat::TensorNode& projection) {
  // Chains are as long as the split had parts; the bound only guards against a malformed graph.
  constexpr size_t kMaxSlicesPerPart = 16;
  std::vector<SplitPart> pending = split_parts(*egraph_, part, projection);
  std::vector<std::tuple<uint32_t, int64_t, int64_t, int64_t>> seen;
  while (!pending.empty() && seen.size() < kMaxSlicesPerPart) {
    SplitPart slice = pending.back();
    pending.pop_back();
    auto key = std::make_tuple(slice.input.value(), slice.axis, slice.start, slice.end);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    ViewNode view_node;
    view_node.op = ir::OpKind::Slice;
    view_node.attrs.set("axis", slice.axis);
    view_node.attrs.set("start", slice.start);
    view_node.attrs.set("end", slice.end);
    view_node.inputs.push_back(slice.input);
    producers_[egraph_->find(part).index()].push_back(static_cast<NodeRef>(nodes_.size()));
    nodes_.push_back(std::move(view_node));
    // The tensor cut from is itself a part of a split on the same axis: a slice of that one too.
    for (const eqsat::TensorNode& above : egraph_->eclass(slice.input).nodes) {
      if (!is_split_projection(above) || !egraph_->is_visible(slice.input, above)) continue;
      for (const SplitPart& outer : split_parts(*egraph_, slice.input, above)) {
        if (outer.axis != slice.axis) continue;
        pending.push_back({outer.input, slice.axis, ir::dim_sum(outer.start, slice.start),
                           ir::dim_sum(outer.start, slice.end)});
      }
    }
  }
}

const ir::TensorType& EGraphView::type(Value value) const {
  const eqsat::TensorData& data = egraph_->data(value);
  return data.kind == eqsat::TensorData::Kind::Tensor ? data.info.type : no_tensor_;
}

}  // namespace saturate::pm
