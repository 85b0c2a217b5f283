#include "eqsat/term_builder.h"

#include "support/error.h"

namespace saturate::eqsat {
namespace {

const ir::AttrValue& attribute_of(const Term& term, const TermBindings& bindings) {
  if (term.kind == Term::Kind::AttributeValue) return term.value;
  auto it = bindings.attributes.find(term.variable);
  if (it == bindings.attributes.end())
    throw Error("attribute variable ?" + term.variable + " is unbound");
  return it->second;
}

int normalized_axis(int64_t axis, int rank) {
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace

const TensorInfo& TermBuilder::info(ir::ValueRef value) {
  auto key = std::make_pair(value.node, value.output);
  if (auto it = infos_.find(key); it != infos_.end()) return it->second;
  const ir::Node& node = graph_.node(value.node);
  TensorInfo result = TensorInfo::of(node.outputs[value.output]);
  if (node.op == ir::OpKind::Split) {
    const TensorInfo& input = info(node.inputs[0]);
    int axis = normalized_axis(node.attrs.get_int("axis"), input.type.rank());
    const auto& sizes = node.attrs.get_ints("sizes");
    // Boundaries inside the parts are kept, as the e-graph's analysis keeps them.
    if (sizes.size() == 2) result = split_parts(input, axis, sizes[0])[value.output];
  } else if (!node.inputs.empty()) {
    std::vector<const TensorInfo*> inputs;
    for (ir::ValueRef input : node.inputs) inputs.push_back(&info(input));
    result.boundaries = propagate_boundaries(node.op, node.attrs, inputs, result.type);
  }
  return infos_.emplace(key, std::move(result)).first->second;
}

void TermBuilder::set_boundaries(ir::ValueRef input, std::vector<std::vector<int64_t>> boundaries) {
  TensorInfo result = TensorInfo::of(graph_.type(input));
  if (boundaries.size() != result.boundaries.size())
    throw Error("boundaries for " + std::to_string(boundaries.size()) + " axes on a tensor of " +
                ir::to_string(result.type));
  result.boundaries = std::move(boundaries);
  infos_.insert_or_assign(std::make_pair(input.node, input.output), std::move(result));
}

ir::NodeId TermBuilder::build_split(const Term& split, const TermBindings& bindings) {
  int64_t axis_attr = std::get<int64_t>(attribute_of(split.args[0], bindings));
  ir::ValueRef input = build(split.args[1], bindings);
  const TensorInfo& input_info = info(input);
  int rank = input_info.type.rank();
  if (axis_attr < -rank || axis_attr >= rank) {
    throw Error("split axis " + std::to_string(axis_attr) + " is out of range for " +
                ir::to_string(input_info.type));
  }
  int axis = normalized_axis(axis_attr, rank);
  auto key = std::make_tuple(input.node, input.output, static_cast<int64_t>(axis));
  if (auto it = splits_.find(key); it != splits_.end()) return it->second;
  auto cut = split_point(input_info, axis);
  if (!cut) {
    throw Error("split on axis " + std::to_string(axis) + " of " + ir::to_string(input_info.type) +
                ": no concat boundary is recorded there");
  }
  std::vector<int64_t> sizes = split_sizes(input_info.type, axis, *cut);
  ir::NodeId id =
      graph_.add_node(ir::OpKind::Split, {input}, {{"axis", int64_t{axis}}, {"sizes", sizes}});
  splits_.emplace(key, id);
  return id;
}

ir::ValueRef TermBuilder::build(const Term& term, const TermBindings& bindings) {
  if (term.kind == Term::Kind::TensorVariable) {
    auto it = bindings.tensors.find(term.variable);
    if (it == bindings.tensors.end())
      throw Error("tensor variable ?" + term.variable + " is unbound");
    return it->second;
  }
  if (term.kind != Term::Kind::Apply)
    throw Error("an attribute is not a tensor: " + term.to_string());

  const LanguageOp& op = *term.op;
  if (op.kind == LanguageOpKind::SplitProjection) {
    ir::NodeId split = build_split(term.args[0], bindings);
    return {split, static_cast<uint32_t>(op.projection)};
  }
  if (op.kind == LanguageOpKind::Split)
    throw Error("a split must be taken apart with split_0/split_1");

  std::vector<ir::ValueRef> inputs;
  ir::Attributes attrs;
  std::optional<int64_t> ndim;
  for (size_t i = 0; i < term.args.size(); ++i) {
    const Slot& slot = op.slots[std::min(i, op.slots.size() - 1)];
    if (slot.kind == SlotKind::Tensor) {
      inputs.push_back(build(term.args[i], bindings));
    } else if (slot.check_only) {
      ndim = std::get<int64_t>(attribute_of(term.args[i], bindings));
    } else {
      attrs.set(slot.name, attribute_of(term.args[i], bindings));
    }
  }
  if (ndim && !inputs.empty() && *ndim != graph_.type(inputs[0]).rank()) {
    throw Error(op.name + ": ndim " + std::to_string(*ndim) + " does not match rank of " +
                ir::to_string(graph_.type(inputs[0])));
  }
  return {graph_.add_node(*op.ir_op, std::move(inputs), attrs), 0};
}

}  // namespace saturate::eqsat
