#pragma once

#include <string>
#include <vector>

#include "egraph/analysis.h"
#include "egraph/enode.h"
#include "eqsat/tensor_info.h"
#include "eqsat/tensor_op.h"
#include "ir/attribute.h"

namespace saturate::eqsat {

// What the shape analysis knows of an e-class: a tensor (type and concat boundaries), the two
// parts of a split, or an attribute value. A class is `known` when some node in it computes it
// from weights and constants alone (it is folded at compile time and costs nothing).
struct TensorData {
  enum class Kind : uint8_t { Invalid, Tensor, Tuple, Attribute };

  Kind kind = Kind::Invalid;
  TensorInfo info;                // Tensor
  std::vector<TensorInfo> parts;  // Tuple
  ir::AttrValue attribute;        // Attribute
  bool known = false;
  std::string error;  // Invalid: why the node does not type-check

  static TensorData invalid(std::string why);
  bool operator==(const TensorData&) const = default;
};

// An operator node split into what the IR wants: the IR operator, its attributes and its tensor
// inputs (by position among the node's children).
struct DecomposedNode {
  const LanguageOp* op = nullptr;
  ir::Attributes attrs;
  std::vector<size_t> tensor_children;  // indices into the node's children
  std::optional<int64_t> ndim;          // TENSAT's concat ndim, checked against the rank
};

// Throws saturate::Error if an attribute slot holds something other than an attribute.
DecomposedNode decompose(const TensorOp& label, const std::vector<const TensorData*>& children);

// The analysis value of a node from its children's: runs the IR's shape inference (and
// TENSAT's split at the recorded boundary); an ill-typed node gets Kind::Invalid with the reason.
TensorData compute_data(const TensorOp& label, const std::vector<const TensorData*>& children);

// The e-class analysis (egraph::Analysis) over TensorData.
struct TensorAnalysis {
  using Data = TensorData;

  template <typename Graph>
  Data make(const Graph& egraph, const egraph::ENode<TensorOp>& node) const {
    std::vector<const TensorData*> children;
    children.reserve(node.children.size());
    for (egraph::EClassId child : node.children) children.push_back(&egraph.data(child));
    return compute_data(node.op, children);
  }

  // Equal classes have equal types; boundaries recorded on either side are all real (any
  // equivalent tensor was concatenated there), so they are united, the kept class's last.
  egraph::DidMerge merge(Data& into, Data from) const;
};

}  // namespace saturate::eqsat
