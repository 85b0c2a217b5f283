#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "egraph/id.h"
#include "egraph/small_vector.h"
#include "support/hash.h"

namespace saturate::egraph {

// What a language supplies: the label of an e-node without its children. The label is the
// operator together with any immediate payload that belongs to the node's identity (a number's
// value, a symbol's name, an attribute), so two nodes are the same iff labels and children are.
//
//   struct MathOp {
//     enum class Kind : std::uint8_t { Num, Add } kind;
//     std::int64_t value;                                   // payload, only for Num
//     auto operator<=>(const MathOp&) const = default;      // equality and a total order
//     std::size_t hash() const;
//     std::uint32_t index() const { return std::uint32_t(kind); }
//     std::string to_string() const;                        // "+", "3"
//     static std::optional<MathOp> parse(std::string_view text, std::size_t arity);
//   };
//
// index() is a small dense number used to find, without scanning, the classes that contain
// nodes of an operator (e-matching starts there). Labels with the same index may differ
// (Num 1, Num 2); the index only has to be equal for equal labels. parse() turns the text of an
// S-expression head or leaf, with the number of children it has, into a label (or nullopt if the
// language has no such operator); patterns and terms are read through it.
template <typename Op>
concept Operator = std::regular<Op> && std::totally_ordered<Op> &&
    requires(const Op op, std::string_view text, std::size_t arity) {
  { op.hash() } -> std::convertible_to<std::size_t>;
  { op.index() } -> std::convertible_to<std::uint32_t>;
  { op.to_string() } -> std::convertible_to<std::string>;
  { Op::parse(text, arity) } -> std::same_as<std::optional<Op>>;
};

// Four inline children cover most operators; wider nodes spill to the heap.
using ChildList = SmallVector<EClassId, 4>;

// An operator applied to e-classes. In a Term or a Pattern the children index earlier entries
// of the same expression instead (as egg's RecExpr does), so one node type serves all three.
template <Operator Op>
struct ENode {
  Op op{};
  ChildList children;

  ENode() = default;
  explicit ENode(Op label, ChildList kids = {}) : op(std::move(label)), children(std::move(kids)) {}

  std::size_t arity() const { return children.size(); }
  bool is_leaf() const { return children.empty(); }
  // Same label and arity: the node could match the other if the children agree.
  bool matches(const ENode& other) const {
    return op == other.op && children.size() == other.children.size();
  }

  std::size_t hash() const {
    std::size_t seed = op.hash();
    hash_combine(seed, children.size());
    for (EClassId child : children) hash_combine(seed, child.value());
    return seed;
  }

  friend bool operator==(const ENode& a, const ENode& b) {
    return a.op == b.op && a.children == b.children;
  }
  // Label first, then arity, then children: nodes that match() one another are contiguous in a
  // sorted class, so e-matching finds them by binary search.
  friend bool operator<(const ENode& a, const ENode& b) {
    if (a.op != b.op) return a.op < b.op;
    if (a.children.size() != b.children.size()) return a.children.size() < b.children.size();
    return a.children < b.children;
  }
};

template <Operator Op>
struct ENodeHash {
  std::size_t operator()(const ENode<Op>& node) const { return node.hash(); }
};

}  // namespace saturate::egraph
