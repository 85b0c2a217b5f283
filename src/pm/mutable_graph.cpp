#include "pm/mutable_graph.h"

#include <algorithm>

namespace saturate::pm {

MutableGraph::MutableGraph(const ir::Graph& graph) : name_(graph.name()) {
  nodes_.reserve(graph.num_nodes());
  used_names_.reserve(graph.num_nodes() * 2);
  for (const ir::Node& original : graph.nodes()) {
    Node node{original.op,
              original.attrs,
              original.inputs,
              original.outputs,
              original.output_names,
              std::vector<std::vector<Use>>(original.outputs.size()),
              std::vector<uint32_t>(original.outputs.size(), 0),
              true};
    auto id = static_cast<ir::NodeId>(nodes_.size());
    for (uint32_t i = 0; i < node.inputs.size(); ++i) {
      const ir::ValueRef& input = node.inputs[i];
      nodes_[input.node].uses[input.output].push_back({id, i});
    }
    for (const std::string& name : node.names) used_names_.insert(name);
    nodes_.push_back(std::move(node));
  }
  outputs_ = graph.outputs();
  for (const ir::GraphOutput& output : outputs_) {
    ++nodes_[output.value.node].output_refs[output.value.output];
  }
}

size_t MutableGraph::num_uses(ir::ValueRef value) const {
  const Node& node = nodes_[value.node];
  return node.uses[value.output].size() + node.output_refs[value.output];
}

bool MutableGraph::depends_on(ir::ValueRef value, ir::NodeId ancestor) const {
  std::vector<bool> seen(nodes_.size(), false);
  std::vector<ir::NodeId> stack{value.node};
  while (!stack.empty()) {
    ir::NodeId id = stack.back();
    stack.pop_back();
    if (id == ancestor) return true;
    if (seen[id]) continue;
    seen[id] = true;
    for (const ir::ValueRef& input : nodes_[id].inputs) stack.push_back(input.node);
  }
  return false;
}

std::string MutableGraph::fresh_name(const std::string& prefix) {
  std::string name = prefix;
  for (int suffix = 1; used_names_.contains(name); ++suffix) {
    name = prefix + "." + std::to_string(suffix);
  }
  used_names_.insert(name);
  return name;
}

ir::NodeId MutableGraph::add_node(ir::OpKind op, std::vector<ir::ValueRef> inputs,
                                  ir::Attributes attrs, std::vector<ir::TensorType> outputs) {
  auto id = static_cast<ir::NodeId>(nodes_.size());
  std::vector<std::string> names;
  std::string base = "t" + std::to_string(id);
  if (outputs.size() == 1) {
    names.push_back(fresh_name(base));
  } else {
    for (size_t k = 0; k < outputs.size(); ++k) {
      names.push_back(fresh_name(base + "_" + std::to_string(k)));
    }
  }
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    nodes_[inputs[i].node].uses[inputs[i].output].push_back({id, i});
  }
  size_t count = outputs.size();
  nodes_.push_back(Node{op, std::move(attrs), std::move(inputs), std::move(outputs),
                        std::move(names), std::vector<std::vector<Use>>(count),
                        std::vector<uint32_t>(count, 0), true});
  return id;
}

void MutableGraph::replace_uses(ir::ValueRef from, ir::ValueRef to, ir::NodeId first_new_node) {
  if (from == to) return;
  std::vector<Use> uses = std::move(nodes_[from.node].uses[from.output]);
  std::vector<Use> kept;
  for (const Use& use : uses) {
    if (use.user >= first_new_node) {
      kept.push_back(use);
      continue;
    }
    nodes_[use.user].inputs[use.input] = to;
    nodes_[to.node].uses[to.output].push_back(use);
  }
  nodes_[from.node].uses[from.output] = std::move(kept);
  for (ir::GraphOutput& output : outputs_) {
    if (output.value != from) continue;
    output.value = to;
    --nodes_[from.node].output_refs[from.output];
    ++nodes_[to.node].output_refs[to.output];
  }
}

void MutableGraph::remove_use(ir::ValueRef value, Use use) {
  std::vector<Use>& uses = nodes_[value.node].uses[value.output];
  auto it = std::find_if(uses.begin(), uses.end(),
                         [&](const Use& u) { return u.user == use.user && u.input == use.input; });
  if (it != uses.end()) uses.erase(it);
}

void MutableGraph::remove_if_unused(ir::NodeId id) {
  std::vector<ir::NodeId> worklist{id};
  while (!worklist.empty()) {
    ir::NodeId current = worklist.back();
    worklist.pop_back();
    Node& node = nodes_[current];
    if (!node.alive || node.op == ir::OpKind::Input) continue;
    bool used = false;
    for (uint32_t k = 0; k < node.outputs.size(); ++k) used = used || num_uses({current, k}) > 0;
    if (used) continue;
    node.alive = false;
    for (uint32_t i = 0; i < node.inputs.size(); ++i) {
      remove_use(node.inputs[i], {current, i});
      worklist.push_back(node.inputs[i].node);
    }
  }
}

std::vector<ir::NodeId> MutableGraph::topological_order() const {
  enum class State : uint8_t { New, Open, Done };
  std::vector<State> state(nodes_.size(), State::New);
  std::vector<ir::NodeId> order;
  order.reserve(nodes_.size());
  struct Entry {
    ir::NodeId node;
    size_t next_input;
  };
  std::vector<Entry> stack;  // explicit: chains in real models are thousands of nodes deep
  for (ir::NodeId root = 0; root < nodes_.size(); ++root) {
    if (!nodes_[root].alive || state[root] != State::New) continue;
    stack.push_back({root, 0});
    state[root] = State::Open;
    while (!stack.empty()) {
      Entry& top = stack.back();
      const Node& node = nodes_[top.node];
      if (top.next_input == node.inputs.size()) {
        state[top.node] = State::Done;
        order.push_back(top.node);
        stack.pop_back();
        continue;
      }
      ir::NodeId input = node.inputs[top.next_input++].node;
      if (state[input] == State::New) {
        state[input] = State::Open;
        stack.push_back({input, 0});
      }
    }
  }
  return order;
}

ir::Graph MutableGraph::to_graph() const {
  ir::Graph graph(name_);
  std::vector<ir::NodeId> new_ids(nodes_.size(), 0);
  for (ir::NodeId id : topological_order()) {
    const Node& node = nodes_[id];
    std::vector<ir::ValueRef> inputs;
    inputs.reserve(node.inputs.size());
    for (const ir::ValueRef& input : node.inputs) {
      inputs.push_back({new_ids[input.node], input.output});
    }
    new_ids[id] = graph.add_node(node.op, std::move(inputs), node.attrs, node.names);
  }
  for (const ir::GraphOutput& output : outputs_) {
    graph.add_output(output.name, {new_ids[output.value.node], output.value.output});
  }
  return graph;
}

std::optional<double> MutableGraphView::constant_value(NodeRef node) const {
  const MutableGraph::Node& n = graph_->node(node);
  if (n.op != ir::OpKind::Constant) return std::nullopt;
  const ir::AttrValue* value = n.attrs.find("value");
  if (value == nullptr || !std::holds_alternative<double>(*value)) return std::nullopt;
  return std::get<double>(*value);
}

}  // namespace saturate::pm
