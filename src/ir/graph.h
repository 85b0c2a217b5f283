#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::ir {

using NodeId = uint32_t;

// One value of the graph: output `output` of node `node`.
struct ValueRef {
  NodeId node = 0;
  uint32_t output = 0;
  bool operator==(const ValueRef&) const = default;
};

// An SSA node. Attributes are complete (defaults filled in); `outputs` holds the inferred types.
struct Node {
  OpKind op;
  Attributes attrs;
  std::vector<ValueRef> inputs;
  std::vector<TensorType> outputs;
  std::vector<std::string> output_names;  // one unique name per output value

  // A node is named by its first output.
  const std::string& name() const { return output_names.front(); }
};

struct GraphOutput {
  std::string name;
  ValueRef value;
};

// A tensor computation graph: nodes in topological order (every input refers to an earlier
// node), multi-output nodes, named inputs, weights and outputs. Every node is shape-checked as
// it is added, so a Graph is always well typed.
class Graph {
 public:
  explicit Graph(std::string name = "graph") : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // Checks arity, attributes and shapes, then appends. Names default to fresh ones ("t<id>").
  // Throws saturate::Error naming the node, its operator and the shapes involved.
  NodeId add_node(OpKind op, std::vector<ValueRef> inputs, const Attributes& attrs,
                  std::vector<std::string> output_names = {});
  ValueRef add_input(const std::string& name, Dims dims, DType dtype = DType::F32);
  ValueRef add_weight(const std::string& name, Dims dims, DType dtype = DType::F32);
  void add_output(const std::string& name, ValueRef value);

  const Node& node(NodeId id) const { return nodes_.at(id); }
  const std::vector<Node>& nodes() const { return nodes_; }
  size_t num_nodes() const { return nodes_.size(); }
  const TensorType& type(ValueRef value) const;
  const std::string& value_name(ValueRef value) const;
  std::optional<ValueRef> find_value(std::string_view name) const;
  const std::vector<GraphOutput>& outputs() const { return outputs_; }

  std::vector<NodeId> nodes_of(OpKind op) const;
  std::vector<NodeId> inputs() const { return nodes_of(OpKind::Input); }
  std::vector<NodeId> weights() const { return nodes_of(OpKind::Weight); }
  // Operators that compute something: every node but inputs, weights and constants.
  size_t num_operators() const;
  // Operator name -> count, leaves excluded.
  std::map<std::string, int> op_histogram() const;

  // A name not yet used, built from the prefix.
  std::string fresh_name(std::string_view prefix) const;

  // Structural equality: same name, nodes, attributes, names and outputs.
  bool operator==(const Graph& other) const;

 private:
  std::string name_;
  std::vector<Node> nodes_;
  std::vector<GraphOutput> outputs_;
  std::unordered_map<std::string, ValueRef> values_by_name_;
};

}  // namespace saturate::ir
