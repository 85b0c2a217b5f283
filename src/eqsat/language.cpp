#include "eqsat/language.h"

#include <algorithm>
#include <unordered_map>

#include "support/error.h"

namespace saturate::eqsat {
namespace {

Slot attribute_slot(const ir::OpInfo& info, std::string_view name) {
  const ir::AttrSpec* spec = info.find_attribute(name);
  if (spec == nullptr)
    throw Error("internal: no attribute " + std::string(name) + " on " + info.name);
  return {SlotKind::Attribute, spec->name, spec->kind, false};
}

Slot tensor_slot(std::string name) {
  return {SlotKind::Tensor, std::move(name)};
}

// Tensors first, then attributes in registry order; TENSAT's own layouts where they differ.
// `tensors` is how many of the operator's inputs this form takes (all for a variadic one).
LanguageOp make_operator(const ir::OpInfo& info, int tensors) {
  LanguageOp op{info.name, LanguageOpKind::Operator, info.kind, {}, {}, false, 0};
  auto add_tensors = [&] {
    int count = info.max_inputs == ir::OpInfo::kVariadic ? 1 : tensors;
    for (int i = 0; i < count; ++i) {
      op.slots.push_back(tensor_slot(i < static_cast<int>(info.input_names.size())
                                         ? info.input_names[i]
                                         : info.input_names.back()));
    }
    op.variadic_tensors = info.max_inputs == ir::OpInfo::kVariadic;
  };
  auto add_attributes = [&] {
    for (const auto& spec : info.attributes) op.slots.push_back(attribute_slot(info, spec.name));
  };
  switch (info.kind) {
    case ir::OpKind::MatMul:
    case ir::OpKind::Conv2d:
      add_attributes();
      add_tensors();
      break;
    case ir::OpKind::Opaque:  // variadic: the tensors must come last
      add_attributes();
      add_tensors();
      break;
    case ir::OpKind::Concat:
      op.slots.push_back(attribute_slot(info, "axis"));
      op.slots.push_back({SlotKind::Attribute, "ndim", ir::AttrKind::Int, true});
      add_tensors();
      break;
    default:
      add_tensors();
      add_attributes();
      break;
  }
  op.node_slots = op.slots;
  return op;
}

// An operator with optional inputs (MultiHeadAttention's mask) has one form per input count,
// all under its one name: a rule or an e-node says which by its number of arguments, and the
// e-graph never needs a placeholder for an input that is not there.
struct Table {
  std::vector<LanguageOp> ops;
  std::unordered_map<std::string, std::vector<size_t>> by_name;  // the forms, most inputs first
  std::vector<std::vector<size_t>> by_ir_op;

  Table() {
    by_ir_op.assign(ir::kNumOpKinds, {});
    for (const ir::OpInfo& info : ir::all_ops()) {
      if (info.is_leaf() || info.kind == ir::OpKind::Split) continue;
      auto& forms = by_ir_op[static_cast<size_t>(info.kind)];
      if (info.max_inputs == ir::OpInfo::kVariadic) {
        forms.push_back(ops.size());
        ops.push_back(make_operator(info, info.min_inputs));
        continue;
      }
      for (int tensors = info.max_inputs; tensors >= info.min_inputs; --tensors) {
        forms.push_back(ops.size());
        ops.push_back(make_operator(info, tensors));
      }
    }
    // TENSAT's split cuts at the last concat boundary recorded on the axis.
    by_ir_op[static_cast<size_t>(ir::OpKind::Split)] = {ops.size()};
    Slot axis{SlotKind::Attribute, "axis", ir::AttrKind::Int};
    Slot cut{SlotKind::Attribute, "cut", ir::AttrKind::Int};
    ops.push_back({"split",
                   LanguageOpKind::Split,
                   ir::OpKind::Split,
                   {axis, tensor_slot("x")},
                   {axis, cut, tensor_slot("x")}});
    for (int part = 0; part < 2; ++part) {
      Slot parts{SlotKind::Tuple, "parts"};
      ops.push_back({"split_" + std::to_string(part),
                     LanguageOpKind::SplitProjection,
                     std::nullopt,
                     {parts},
                     {parts},
                     false,
                     part});
    }
    Slot index{SlotKind::Attribute, "index", ir::AttrKind::Int};
    Slot outputs{SlotKind::Tuple, "outputs"};
    ops.push_back({"output",
                   LanguageOpKind::OutputProjection,
                   std::nullopt,
                   {index, outputs},
                   {index, outputs}});
    for (size_t i = 0; i < ops.size(); ++i) by_name[ops[i].name].push_back(i);
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

const LanguageOp* find_language_op(std::string_view name) {
  auto it = table().by_name.find(std::string(name));
  return it == table().by_name.end() ? nullptr : &table().ops[it->second.front()];
}

const LanguageOp* find_language_op(std::string_view name, size_t arity) {
  auto it = table().by_name.find(std::string(name));
  if (it == table().by_name.end()) return nullptr;
  for (size_t index : it->second) {
    const LanguageOp& op = table().ops[index];
    size_t slots = op.node_slots.size();
    if (op.variadic_tensors ? arity >= slots : arity == slots) return &op;
  }
  return nullptr;
}

std::vector<const LanguageOp*> language_op_forms(std::string_view name) {
  std::vector<const LanguageOp*> forms;
  auto it = table().by_name.find(std::string(name));
  if (it == table().by_name.end()) return forms;
  for (size_t index : it->second) forms.push_back(&table().ops[index]);
  return forms;
}

const std::vector<LanguageOp>& language_ops() {
  return table().ops;
}

const LanguageOp& language_op_for(ir::OpKind op) {
  if (ir::op_info(op).is_leaf()) {
    throw Error("internal: leaf operator " + std::string(ir::to_string(op)) +
                " has no language form");
  }
  return table().ops[table().by_ir_op[static_cast<size_t>(op)].front()];
}

const LanguageOp& language_op_for(ir::OpKind op, size_t tensors) {
  const LanguageOp& full = language_op_for(op);
  if (full.variadic_tensors) return full;
  for (size_t index : table().by_ir_op[static_cast<size_t>(op)]) {
    const LanguageOp& form = table().ops[index];
    size_t count =
        static_cast<size_t>(std::count_if(form.slots.begin(), form.slots.end(), [](const Slot& s) {
          return s.kind == SlotKind::Tensor;
        }));
    if (count == tensors) return form;
  }
  throw Error(std::string(ir::to_string(op)) + " does not take " + std::to_string(tensors) +
              " inputs");
}

}  // namespace saturate::eqsat
