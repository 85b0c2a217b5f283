#include "ir/graph.h"

#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::ir {

NodeId Graph::add_node(OpKind op, std::vector<ValueRef> inputs, const Attributes& attrs,
                       std::vector<std::string> output_names) {
  const OpInfo& info = op_info(op);
  const auto id = static_cast<NodeId>(nodes_.size());
  std::string label = output_names.empty() ? "#" + std::to_string(id) : output_names.front();
  auto fail = [&](const std::string& message) -> Error {
    return Error("node '" + label + "' (" + info.name + "): " + message);
  };

  std::vector<TensorType> input_types;
  for (const ValueRef& input : inputs) {
    if (input.node >= id || input.output >= nodes_[input.node].outputs.size()) {
      throw fail("input refers to a value that does not exist yet (node " +
                 std::to_string(input.node) + " output " + std::to_string(input.output) + ")");
    }
    input_types.push_back(type(input));
  }

  Node node{op, {}, std::move(inputs), {}, {}};
  try {
    node.attrs = complete_attributes(info, attrs);
    node.outputs = infer_types(op, input_types, node.attrs);
  } catch (const Error& error) {
    std::string shapes;
    for (const auto& t : input_types) shapes += (shapes.empty() ? "" : ", ") + to_string(t);
    throw fail(std::string(error.what()) + (shapes.empty() ? "" : " (inputs: " + shapes + ")"));
  }

  if (output_names.empty()) {
    std::string base = fresh_name("t" + std::to_string(id));
    if (node.outputs.size() == 1) {
      output_names.push_back(base);
    } else {
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        output_names.push_back(fresh_name(base + "_" + std::to_string(k)));
      }
    }
  }
  if (output_names.size() != node.outputs.size()) {
    throw fail("has " + std::to_string(node.outputs.size()) + " outputs but " +
               std::to_string(output_names.size()) + " names were given");
  }
  for (size_t k = 0; k < output_names.size(); ++k) {
    const std::string& name = output_names[k];
    if (name.empty()) throw fail("output names must not be empty");
    if (values_by_name_.contains(name)) throw fail("the name '" + name + "' is already used");
    for (size_t j = 0; j < k; ++j) {
      if (output_names[j] == name) throw fail("the name '" + name + "' is given twice");
    }
  }
  for (size_t k = 0; k < output_names.size(); ++k) {
    values_by_name_.emplace(output_names[k], ValueRef{id, static_cast<uint32_t>(k)});
  }
  node.output_names = std::move(output_names);
  nodes_.push_back(std::move(node));
  return id;
}

ValueRef Graph::add_input(const std::string& name, Dims dims, DType dtype) {
  Attributes attrs{{"shape", std::move(dims)}, {"dtype", std::string(to_string(dtype))}};
  return {add_node(OpKind::Input, {}, attrs, {name}), 0};
}

ValueRef Graph::add_weight(const std::string& name, Dims dims, DType dtype) {
  Attributes attrs{{"shape", std::move(dims)}, {"dtype", std::string(to_string(dtype))}};
  return {add_node(OpKind::Weight, {}, attrs, {name}), 0};
}

void Graph::add_output(const std::string& name, ValueRef value) {
  if (name.empty()) throw Error("graph outputs need a name");
  if (value.node >= nodes_.size() || value.output >= nodes_[value.node].outputs.size()) {
    throw Error("output '" + name + "' refers to a value that does not exist");
  }
  for (const auto& output : outputs_) {
    if (output.name == name) throw Error("the graph already has an output named '" + name + "'");
  }
  outputs_.push_back({name, value});
}

const TensorType& Graph::type(ValueRef value) const {
  return nodes_.at(value.node).outputs.at(value.output);
}

const std::string& Graph::value_name(ValueRef value) const {
  return nodes_.at(value.node).output_names.at(value.output);
}

std::optional<ValueRef> Graph::find_value(std::string_view name) const {
  auto it = values_by_name_.find(std::string(name));
  if (it == values_by_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<NodeId> Graph::nodes_of(OpKind op) const {
  std::vector<NodeId> ids;
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    if (nodes_[id].op == op) ids.push_back(id);
  }
  return ids;
}

size_t Graph::num_operators() const {
  size_t count = 0;
  for (const auto& node : nodes_) count += op_info(node.op).is_leaf() ? 0 : 1;
  return count;
}

std::map<std::string, int> Graph::op_histogram() const {
  std::map<std::string, int> histogram;
  for (const auto& node : nodes_) {
    if (!op_info(node.op).is_leaf()) ++histogram[op_info(node.op).name];
  }
  return histogram;
}

std::string Graph::fresh_name(std::string_view prefix) const {
  std::string name(prefix);
  for (int suffix = 1; values_by_name_.contains(name); ++suffix) {
    name = std::string(prefix) + "." + std::to_string(suffix);
  }
  return name;
}

bool Graph::operator==(const Graph& other) const {
  if (name_ != other.name_ || nodes_.size() != other.nodes_.size() ||
      outputs_.size() != other.outputs_.size()) {
    return false;
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& a = nodes_[i];
    const Node& b = other.nodes_[i];
    if (a.op != b.op || !(a.attrs == b.attrs) || a.inputs != b.inputs || a.outputs != b.outputs ||
        a.output_names != b.output_names) {
      return false;
    }
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].name != other.outputs_[i].name ||
        outputs_[i].value != other.outputs_[i].value) {
      return false;
    }
  }
  return true;
}

}  // namespace saturate::ir
