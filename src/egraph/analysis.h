#pragma once

#include <optional>
#include <utility>

namespace saturate::egraph {

// What merging two analysis values changed, so the e-graph only revisits parents whose inputs
// actually changed: `into_changed` means the kept value differs from what it was before, and
// `from_changed` that it differs from the value merged in.
struct DidMerge {
  bool into_changed = false;
  bool from_changed = false;
};

// An e-class analysis (egg's Analysis trait) attaches a Data value to every e-class:
//
//   struct ConstantFolding {
//     using Data = std::optional<std::int64_t>;
//     // The value of a new e-node, from its children's data (egraph.data(child)).
//     template <typename EGraph> Data make(const EGraph& egraph, const ENode<MathOp>& node);
//     // Join `from` into `into` when two classes merge, or when a node's value is recomputed.
//     DidMerge merge(Data& into, Data from);
//     // Optional: change the e-graph after a class's data changed (add the constant node and
//     // merge it in, say). Called on add, on merge and when rebuilding propagates new data.
//     template <typename EGraph> void modify(EGraph& egraph, EClassId id);
//   };
//
// The e-graph owns one instance, so an analysis may keep state (egraph.analysis()). Data must
// only move up a semilattice under merge, or propagation would not terminate.
struct NoAnalysis {
  struct Data {
    friend bool operator==(Data, Data) = default;
  };
  template <typename EGraph, typename Node>
  Data make(const EGraph& /*egraph*/, const Node& /*node*/) const {
    return {};
  }
  DidMerge merge(Data& /*into*/, Data /*from*/) const { return {}; }
};

// Merge helper for optional data where any present value wins and two present values must agree
// (constant folding): returns what changed.
template <typename T>
DidMerge merge_optional(std::optional<T>& into, std::optional<T> from) {
  if (!from) return {false, into.has_value()};
  if (!into) {
    into = std::move(from);
    return {true, false};
  }
  return {false, false};
}

}  // namespace saturate::egraph
