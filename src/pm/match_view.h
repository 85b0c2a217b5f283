#pragma once

// What the matcher needs to know about a graph. A value may be produced by several nodes (an
// e-class in an e-graph: each producer is a choice point); in an ir::Graph, by exactly one.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::pm {

template <class View>
concept MatchView = requires(const View& view, typename View::Value value,
                             typename View::NodeRef node) {
  requires std::copyable<typename View::Value>;
  requires std::default_initializable<typename View::Value>;
  requires std::equality_comparable<typename View::Value>;
  requires std::copyable<typename View::NodeRef>;
  requires std::default_initializable<typename View::NodeRef>;
  requires std::equality_comparable<typename View::NodeRef>;
  // Calls f(node, output index) for each node that can produce the value, until f returns
  // true; returns whether it did.
  {
    view.for_each_producer(value, [](typename View::NodeRef, uint32_t) { return false; })
    } -> std::convertible_to<bool>;
  { view.op(node) } -> std::convertible_to<ir::OpKind>;
  { view.attrs(node) } -> std::convertible_to<const ir::Attributes&>;
  { view.num_inputs(node) } -> std::convertible_to<size_t>;
  { view.input(node, size_t{0}) } -> std::convertible_to<typename View::Value>;
  { view.type(value) } -> std::convertible_to<const ir::TensorType&>;
  // Whether two values are the same (nonlinear variables); for an e-graph, the same e-class.
  { view.same(value, value) } -> std::convertible_to<bool>;
  // A constant node's `value`, nothing for any other node.
  { view.constant_value(node) } -> std::convertible_to<std::optional<double>>;
  // A short name for messages and explanations ("t5", "e-class 7").
  { view.describe(value) } -> std::convertible_to<std::string>;
};

}  // namespace saturate::pm
