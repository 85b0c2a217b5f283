#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/op_kind.h"
#include "ir/op_registry.h"

namespace saturate::eqsat {

// The tensor language of the e-graph and of rule files: each operator is applied to a fixed
// sequence of slots, each an attribute or a tensor, in TENSAT's order where TENSAT has the
// operator ("(conv2d 1 1 0 2 ?x ?w)" is stride_h stride_w padding activation input weight).
// Attributes are e-nodes of their own (leaves), so rule variables may stand for them.
enum class SlotKind { Attribute, Tensor, Tuple };

struct Slot {
  SlotKind kind;
  std::string name;  // attribute name, or the input's name
  ir::AttrKind attr_kind = ir::AttrKind::Int;
  bool check_only = false;  // TENSAT's concat "ndim": checked against the rank
};

// OutputProjection ("output INDEX TUPLE") takes one output of a multi-output operator (an opaque
// ONNX node, or a fused kernel with several outputs), whose own class is a tuple.
enum class LanguageOpKind { Operator, Split, SplitProjection, OutputProjection };

struct LanguageOp {
  std::string name;
  LanguageOpKind kind = LanguageOpKind::Operator;
  std::optional<ir::OpKind> ir_op;  // Operator only
  std::vector<Slot> slots;          // as rules write them
  // The children of its e-nodes: the slots, except that a split also records where it cuts
  // (axis, cut, x), so that its meaning cannot change when its input's class later gains other
  // concat boundaries. Rules never write the cut: it is computed when a split is built.
  std::vector<Slot> node_slots;
  bool variadic_tensors = false;  // the last slot repeats (concat)
  int projection = 0;             // SplitProjection: which part (split_0, split_1)
};

// The operators rules may use: every non-leaf IR operator, plus TENSAT's binary "split" (at
// the last recorded concat boundary, producing a tuple) and its projections split_0/split_1.
// An IR split with explicit sizes becomes a chain of binary splits.
// An operator with optional inputs has one form per input count under one name (most inputs
// first); `find_language_op(name)` is the form with all of them.
const LanguageOp* find_language_op(std::string_view name);
// The form of `name` that takes `arity` arguments (tensors and attributes), if any.
const LanguageOp* find_language_op(std::string_view name, size_t arity);
std::vector<const LanguageOp*> language_op_forms(std::string_view name);
const std::vector<LanguageOp>& language_ops();
// The language op an IR operator maps to: with all its inputs, or with `tensors` of them.
const LanguageOp& language_op_for(ir::OpKind op);
const LanguageOp& language_op_for(ir::OpKind op, size_t tensors);
// Split projections and output projections: they select a value, they compute nothing.
inline bool is_projection(const LanguageOp& op) {
  return op.kind == LanguageOpKind::SplitProjection || op.kind == LanguageOpKind::OutputProjection;
}

}  // namespace saturate::eqsat
