#include "eqsat/tensor_analysis.h"

#include <algorithm>

#include "eqsat/dim_facts.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::eqsat {
namespace {

// Boundaries of `from` that `into` lacks go in front, so `into`'s split points stay last.
bool unite_boundaries(TensorInfo& into, const TensorInfo& from) {
  bool changed = false;
  for (size_t axis = 0; axis < into.boundaries.size() && axis < from.boundaries.size(); ++axis) {
    auto& mine = into.boundaries[axis];
    for (int64_t offset : from.boundaries[axis]) {
      if (std::find(mine.begin(), mine.end(), offset) == mine.end()) {
        mine.insert(mine.begin(), offset);
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace

TensorData TensorData::invalid(std::string why) {
  TensorData data;
  data.error = std::move(why);
  return data;
}

DecomposedNode decompose(const TensorOp& label, const std::vector<const TensorData*>& children) {
  DecomposedNode result;
  result.op = &label.op();
  const auto& slots = result.op->node_slots;
  for (size_t i = 0; i < children.size(); ++i) {
    const Slot& slot = slots[std::min(i, slots.size() - 1)];
    if (slot.kind != SlotKind::Attribute) {
      result.tensor_children.push_back(i);
      continue;
    }
    if (children[i]->kind != TensorData::Kind::Attribute) {
      throw Error(result.op->name + ": slot " + slot.name + " needs an attribute");
    }
    if (slot.check_only) {
      if (const auto* ndim = std::get_if<int64_t>(&children[i]->attribute)) result.ndim = *ndim;
    } else {
      result.attrs.set(slot.name, children[i]->attribute);
    }
  }
  return result;
}

TensorData compute_data(const TensorOp& label, const std::vector<const TensorData*>& children) {
  TensorData data;
  switch (label.kind) {
    case TensorOp::Kind::Attribute:
      data.kind = TensorData::Kind::Attribute;
      data.attribute = label.attribute_value();
      data.known = true;
      return data;
    case TensorOp::Kind::Leaf: {
      const LeafTensor& leaf = label.leaf_tensor();
      data.kind = TensorData::Kind::Tensor;
      data.info = TensorInfo::of(leaf.type);
      data.known = leaf.op != ir::OpKind::Input;
      return data;
    }
    case TensorOp::Kind::Operator:
      break;
  }
  const LanguageOp& op = label.op();
  try {
    for (const TensorData* child : children) {
      if (child->kind == TensorData::Kind::Invalid) return TensorData::invalid(child->error);
    }
    if (op.kind == LanguageOpKind::SplitProjection) {
      const TensorData& tuple = *children.at(0);
      if (tuple.kind != TensorData::Kind::Tuple)
        return TensorData::invalid(op.name + " of a non-split");
      data.kind = TensorData::Kind::Tensor;
      data.info = tuple.parts.at(static_cast<size_t>(op.projection));
      data.known = tuple.known;
      return data;
    }
    if (op.kind == LanguageOpKind::OutputProjection) {
      const TensorData& index = *children.at(0);
      const TensorData& tuple = *children.at(1);
      const auto* k = std::get_if<int64_t>(&index.attribute);
      if (index.kind != TensorData::Kind::Attribute || k == nullptr)
        return TensorData::invalid(op.name + ": the index must be an integer");
      if (tuple.kind != TensorData::Kind::Tuple || *k < 0 ||
          *k >= static_cast<int64_t>(tuple.parts.size())) {
        return TensorData::invalid(op.name + " of a non-tuple or out of range");
      }
      data.kind = TensorData::Kind::Tensor;
      data.info = tuple.parts[static_cast<size_t>(*k)];
      data.known = tuple.known;
      return data;
    }
    DecomposedNode node = decompose(label, children);
    std::vector<const TensorInfo*> inputs;
    std::vector<ir::TensorType> types;
    data.known = true;
    for (size_t index : node.tensor_children) {
      const TensorData& child = *children[index];
      if (child.kind != TensorData::Kind::Tensor)
        return TensorData::invalid(op.name + " of a non-tensor");
      inputs.push_back(&child.info);
      types.push_back(child.info.type);
      data.known = data.known && child.known;
    }
    if (node.ndim && !types.empty() && *node.ndim != types[0].rank()) {
      return TensorData::invalid(op.name + ": ndim does not match the rank");
    }
    if (op.kind == LanguageOpKind::Split) {
      int64_t axis = node.attrs.get_int("axis");
      int64_t cut = node.attrs.get_int("cut");
      int rank = inputs[0]->type.rank();
      if (axis < -rank || axis >= rank) return TensorData::invalid("split axis out of range");
      int normalized = static_cast<int>(axis < 0 ? axis + rank : axis);
      // Both parts must be dimensions at every value of the symbols (a cut that is inside
      // only at some sizes is no split).
      if (!cut_inside(cut, inputs[0]->type.dims[normalized])) {
        return TensorData::invalid("split cut outside the tensor");
      }
      // Extraction builds the IR's split from its parts' sizes: a split the IR cannot hold (it
      // refuses symbolic sizes) is no split here either (throws, so invalid).
      ir::infer_types(ir::OpKind::Split, types,
                      ir::Attributes{{"axis", int64_t{normalized}},
                                     {"sizes", split_sizes(inputs[0]->type, normalized, cut)}});
      auto parts = split_parts(*inputs[0], normalized, cut);
      data.kind = TensorData::Kind::Tuple;
      data.parts = {parts[0], parts[1]};
      return data;
    }
    std::vector<ir::TensorType> outputs = ir::infer_types(*op.ir_op, types, node.attrs);
    // An opaque node is never folded (the interpreter cannot evaluate it).
    if (*op.ir_op == ir::OpKind::Opaque) data.known = false;
    if (outputs.size() > 1) {
      // Several outputs make a tuple that output nodes take apart.
      data.kind = TensorData::Kind::Tuple;
      for (const auto& type : outputs) data.parts.push_back(TensorInfo::of(type));
      return data;
    }
    data.kind = TensorData::Kind::Tensor;
    data.info = TensorInfo::of(outputs.at(0));
    ir::Attributes complete = ir::complete_attributes(ir::op_info(*op.ir_op), node.attrs);
    data.info.boundaries = propagate_boundaries(*op.ir_op, complete, inputs, data.info.type);
    return data;
  } catch (const Error& error) {
    return TensorData::invalid(error.what());
  }
}

egraph::DidMerge TensorAnalysis::merge(Data& into, Data from) const {
  if (into.kind == TensorData::Kind::Invalid) {
    bool changed = from.kind != TensorData::Kind::Invalid;
    if (changed) into = std::move(from);
    return {changed, false};
  }
  if (from.kind == TensorData::Kind::Invalid) return {false, true};
  bool into_changed = false;
  if (!into.known && from.known) {
    into.known = true;
    into_changed = true;
  }
  if (into.kind == TensorData::Kind::Tensor && from.kind == TensorData::Kind::Tensor) {
    into_changed |= unite_boundaries(into.info, from.info);
  } else if (into.kind == TensorData::Kind::Tuple && from.kind == TensorData::Kind::Tuple) {
    for (size_t k = 0; k < into.parts.size() && k < from.parts.size(); ++k) {
      into_changed |= unite_boundaries(into.parts[k], from.parts[k]);
    }
  }
  return {into_changed, !(into == from)};
}

}  // namespace saturate::eqsat
