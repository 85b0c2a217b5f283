#include "eqsat/graph_conversion.h"

#include <algorithm>
#include <functional>

#include "eqsat/tensor_info.h"
#include "ir/op_registry.h"
#include "support/error.h"

namespace saturate::eqsat {
namespace {

EClassId add_attribute(TensorEGraph& egraph, const ir::AttrValue& value) {
  return egraph.add(TensorNode(TensorOp::attribute(value)));
}

EClassId add_operator(TensorEGraph& egraph, const LanguageOp& op, const ir::Attributes& attrs,
                      const std::vector<EClassId>& tensors) {
  egraph::ChildList children;
  size_t next_tensor = 0;
  for (size_t i = 0; i < op.node_slots.size(); ++i) {
    const Slot& slot = op.node_slots[i];
    if (slot.kind == SlotKind::Attribute) {
      if (slot.check_only) {
        children.push_back(
            add_attribute(egraph, int64_t{egraph.data(tensors.at(0)).info.type.rank()}));
      } else {
        children.push_back(add_attribute(egraph, *attrs.find(slot.name)));
      }
      continue;
    }
    bool last = i + 1 == op.node_slots.size();
    if (last && op.variadic_tensors) {
      while (next_tensor < tensors.size()) children.push_back(tensors[next_tensor++]);
    } else {
      children.push_back(tensors.at(next_tensor++));
    }
  }
  return egraph.add(TensorNode(TensorOp::of(op), std::move(children)));
}

const LanguageOp& language_op(std::string_view name) {
  const LanguageOp* op = find_language_op(name);
  if (op == nullptr) throw Error("internal: no language op " + std::string(name));
  return *op;
}

}  // namespace

GraphRoot add_graph(TensorEGraph& egraph, const ir::Graph& graph) {
  if (graph.outputs().empty())
    throw Error("graph '" + graph.name() + "' has no outputs to optimize");
  std::vector<std::vector<EClassId>> values(graph.num_nodes());
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (ir::op_info(node.op).is_leaf()) {
      LeafTensor leaf{node.op, node.name(), node.outputs[0],
                      node.op == ir::OpKind::Constant ? node.attrs.get_float("value") : 0.0};
      values[id].push_back(egraph.add(TensorNode(TensorOp::leaf(leaf))));
      continue;
    }
    std::vector<EClassId> inputs;
    for (ir::ValueRef input : node.inputs) inputs.push_back(values[input.node][input.output]);
    if (node.op == ir::OpKind::Split) {
      // An n-way split is a chain of binary splits, each with its cut written down.
      int rank = node.outputs[0].rank();
      int64_t axis = node.attrs.get_int("axis");
      int64_t normalized = axis < 0 ? axis + rank : axis;
      const auto& sizes = node.attrs.get_ints("sizes");
      EClassId rest = inputs[0];
      for (size_t k = 0; k + 1 < sizes.size(); ++k) {
        ir::Attributes attrs{{"axis", normalized}, {"cut", sizes[k]}};
        EClassId tuple = add_operator(egraph, language_op("split"), attrs, {rest});
        values[id].push_back(egraph.add(TensorNode(TensorOp::of(language_op("split_0")), {tuple})));
        rest = egraph.add(TensorNode(TensorOp::of(language_op("split_1")), {tuple}));
      }
      values[id].push_back(rest);
      continue;
    }
    EClassId result =
        add_operator(egraph, language_op_for(node.op, inputs.size()), node.attrs, inputs);
    if (node.outputs.size() > 1) {
      // A multi-output (opaque) operator's class is a tuple; each output is a projection.
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        EClassId index = add_attribute(egraph, static_cast<int64_t>(k));
        values[id].push_back(
            egraph.add(TensorNode(TensorOp::of(language_op("output")), {index, result})));
      }
      continue;
    }
    values[id].push_back(result);
  }
  GraphRoot root{{}, graph.name(), {}};
  const LanguageOp& noop = language_op_for(ir::OpKind::Noop);
  for (const ir::GraphOutput& output : graph.outputs()) {
    EClassId value = values[output.value.node][output.value.output];
    root.root =
        root.output_names.empty() ? value : add_operator(egraph, noop, {}, {root.root, value});
    root.output_names.push_back(output.name);
  }
  egraph.rebuild();
  root.root = egraph.find(root.root);
  return root;
}

ir::Graph extract_graph(const TensorEGraph& egraph, const GraphRoot& root, const Choice& choice) {
  ir::Graph graph(root.graph_name);
  std::unordered_map<uint32_t, ir::ValueRef> built;       // tensor classes
  std::unordered_map<uint32_t, ir::NodeId> built_splits;  // split (tuple) classes
  std::unordered_map<uint32_t, bool> in_progress;

  auto chosen = [&](EClassId id) -> const TensorNode& {
    auto it = choice.find(egraph.find(id).value());
    if (it == choice.end())
      throw Error("extraction chose no node for class e" + std::to_string(egraph.find(id).value()));
    return it->second;
  };
  auto attribute = [&](EClassId id) -> const ir::AttrValue& {
    const TensorData& data = egraph.data(id);
    if (data.kind != TensorData::Kind::Attribute)
      throw Error("internal: expected an attribute class");
    return data.attribute;
  };

  std::function<ir::NodeId(EClassId)> build_split;
  std::function<ir::NodeId(EClassId)> build_tuple;
  std::function<ir::ValueRef(EClassId)> build;
  // An IR operator node from its e-node: attribute children become attributes, the others are
  // built (recursively) as inputs.
  auto add_operator_node = [&](const TensorNode& node, const LanguageOp& op) -> ir::NodeId {
    std::vector<ir::ValueRef> inputs;
    ir::Attributes attrs;
    for (size_t i = 0; i < node.children.size(); ++i) {
      const Slot& slot = op.node_slots[std::min(i, op.node_slots.size() - 1)];
      if (slot.kind == SlotKind::Attribute) {
        if (!slot.check_only) attrs.set(slot.name, attribute(node.children[i]));
      } else {
        inputs.push_back(build(node.children[i]));
      }
    }
    return graph.add_node(*op.ir_op, std::move(inputs), attrs);
  };
  build = [&](EClassId id) -> ir::ValueRef {
    uint32_t key = egraph.find(id).value();
    if (auto it = built.find(key); it != built.end()) return it->second;
    if (in_progress[key])
      throw Error("the extracted choice is cyclic at class e" + std::to_string(key));
    in_progress[key] = true;
    const TensorNode& node = chosen(id);
    ir::ValueRef value;
    if (node.op.kind == TensorOp::Kind::Leaf) {
      const LeafTensor& leaf = node.op.leaf_tensor();
      if (leaf.op == ir::OpKind::Constant) {
        value = {
            graph.add_node(ir::OpKind::Constant, {},
                           {{"shape", leaf.type.dims},
                            {"value", leaf.value},
                            {"dtype", std::string(ir::to_string(leaf.type.dtype))}},
                           // Constants are not fed by name, and an operator built
                           // earlier may already carry an automatic name like theirs.
                           {graph.find_value(leaf.name) ? graph.fresh_name(leaf.name) : leaf.name}),
            0};
      } else if (leaf.op == ir::OpKind::Weight) {
        value = graph.add_weight(leaf.name, leaf.type.dims, leaf.type.dtype);
      } else {
        value = graph.add_input(leaf.name, leaf.type.dims, leaf.type.dtype);
      }
    } else if (node.op.kind == TensorOp::Kind::Attribute) {
      throw Error("internal: an attribute class is not a tensor");
    } else {
      const LanguageOp& op = node.op.op();
      if (op.kind == LanguageOpKind::SplitProjection) {
        value = {build_split(node.children[0]), static_cast<uint32_t>(op.projection)};
      } else if (op.kind == LanguageOpKind::OutputProjection) {
        value = {build_tuple(node.children[1]),
                 static_cast<uint32_t>(std::get<int64_t>(attribute(node.children[0])))};
      } else if (op.kind == LanguageOpKind::Split) {
        throw Error("internal: a split class is not a tensor");
      } else {
        value = {add_operator_node(node, op), 0};
      }
    }
    in_progress[key] = false;
    built.emplace(key, value);
    return value;
  };
  // The multi-output operator (opaque) whose tuple class this is, built once.
  std::unordered_map<uint32_t, ir::NodeId> built_tuples;
  build_tuple = [&](EClassId id) -> ir::NodeId {
    uint32_t key = egraph.find(id).value();
    if (auto it = built_tuples.find(key); it != built_tuples.end()) return it->second;
    const TensorNode& node = chosen(id);
    if (node.op.kind != TensorOp::Kind::Operator || node.op.op().kind != LanguageOpKind::Operator) {
      throw Error("internal: an output projection of something other than an operator");
    }
    const LanguageOp& op = node.op.op();
    ir::NodeId built_node = add_operator_node(node, op);
    built_tuples.emplace(key, built_node);
    return built_node;
  };
  build_split = [&](EClassId id) -> ir::NodeId {
    uint32_t key = egraph.find(id).value();
    if (auto it = built_splits.find(key); it != built_splits.end()) return it->second;
    const TensorNode& node = chosen(id);
    if (node.op.kind != TensorOp::Kind::Operator || node.op.op().kind != LanguageOpKind::Split) {
      throw Error("internal: a split projection of something other than a split");
    }
    int64_t axis = std::get<int64_t>(attribute(node.children[0]));
    int64_t cut = std::get<int64_t>(attribute(node.children[1]));
    ir::ValueRef input = build(node.children[2]);
    ir::NodeId split =
        graph.add_node(ir::OpKind::Split, {input},
                       {{"axis", axis}, {"sizes", split_sizes(graph.type(input), axis, cut)}});
    built_splits.emplace(key, split);
    return split;
  };

  // Inputs and weights are built first, in a fixed order: an operator's automatic name ("t24")
  // must not take the name of a leaf built after it (a model exported from automatic names,
  // as ONNX files written by `saturate export` are, has weights named like that).
  std::vector<std::pair<std::pair<int, std::string>, EClassId>> leaves;
  std::unordered_map<uint32_t, bool> reached;
  std::vector<EClassId> pending = {root.root};
  while (!pending.empty()) {
    const EClassId id = pending.back();
    pending.pop_back();
    const uint32_t key = egraph.find(id).value();
    if (reached[key]) continue;
    reached[key] = true;
    auto it = choice.find(key);
    if (it == choice.end()) continue;  // attribute classes have no choice
    const TensorNode& node = it->second;
    if (node.op.kind == TensorOp::Kind::Leaf) {
      const LeafTensor& leaf = node.op.leaf_tensor();
      if (leaf.op != ir::OpKind::Constant) {
        leaves.push_back({{leaf.op == ir::OpKind::Input ? 0 : 1, leaf.name}, id});
      }
    }
    for (EClassId child : node.children) pending.push_back(child);
  }
  std::sort(leaves.begin(), leaves.end());
  for (const auto& [order, id] : leaves) build(id);

  // Builds each class reachable from `start` children first, with an explicit stack, so that
  // build() finds every input built and never recurses deeply (a chain of 100,000 operators
  // overflowed the stack). Visits children in build()'s order, so the graph comes out the same.
  enum class Want { Tensor, Split, Tuple };
  auto done = [&](EClassId id, Want want) {
    uint32_t key = egraph.find(id).value();
    return want == Want::Tensor  ? built.contains(key)
           : want == Want::Split ? built_splits.contains(key)
                                 : built_tuples.contains(key);
  };
  auto inputs_of = [&](EClassId id, Want want) {
    std::vector<std::pair<EClassId, Want>> inputs;
    auto it = choice.find(egraph.find(id).value());
    if (it == choice.end()) return inputs;  // build() reports it
    const TensorNode& node = it->second;
    if (node.op.kind != TensorOp::Kind::Operator) return inputs;
    const LanguageOp& op = node.op.op();
    if (want == Want::Split) {
      if (node.children.size() > 2) inputs.push_back({node.children[2], Want::Tensor});
    } else if (want == Want::Tensor && op.kind == LanguageOpKind::SplitProjection) {
      inputs.push_back({node.children[0], Want::Split});
    } else if (want == Want::Tensor && op.kind == LanguageOpKind::OutputProjection) {
      inputs.push_back({node.children[1], Want::Tuple});
    } else if (op.kind == LanguageOpKind::Operator) {
      for (size_t i = 0; i < node.children.size(); ++i) {
        const Slot& slot = op.node_slots[std::min(i, op.node_slots.size() - 1)];
        if (slot.kind != SlotKind::Attribute) inputs.push_back({node.children[i], Want::Tensor});
      }
    }
    return inputs;
  };
  auto build_children_first = [&](EClassId start) {
    struct Frame {
      EClassId id;
      Want want;
      std::vector<std::pair<EClassId, Want>> inputs;
      size_t next = 0;
    };
    std::unordered_map<uint32_t, bool> on_stack;
    std::vector<Frame> stack;
    if (done(start, Want::Tensor)) return;
    stack.push_back({start, Want::Tensor, inputs_of(start, Want::Tensor)});
    on_stack[egraph.find(start).value()] = true;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next < frame.inputs.size()) {
        auto [child, want] = frame.inputs[frame.next++];
        uint32_t key = egraph.find(child).value();
        if (done(child, want) || on_stack[key]) continue;  // a cycle: build() reports it
        on_stack[key] = true;
        stack.push_back({child, want, inputs_of(child, want)});
        continue;
      }
      const EClassId id = frame.id;
      const Want want = frame.want;
      on_stack[egraph.find(id).value()] = false;
      stack.pop_back();
      if (want == Want::Tensor) {
        build(id);
      } else if (want == Want::Split) {
        build_split(id);
      } else {
        build_tuple(id);
      }
    }
  };

  // Unfold the noop chain that joined the outputs.
  std::vector<EClassId> outputs(root.output_names.size());
  EClassId current = root.root;
  for (size_t k = outputs.size(); k-- > 1;) {
    const TensorNode& node = chosen(current);
    if (node.op.kind != TensorOp::Kind::Operator || node.op.op().ir_op != ir::OpKind::Noop) {
      throw Error("internal: the root of a multi-output graph must stay a noop chain");
    }
    outputs[k] = node.children[1];
    current = node.children[0];
  }
  if (!outputs.empty()) outputs[0] = current;
  for (size_t k = 0; k < outputs.size(); ++k) {
    build_children_first(outputs[k]);
    graph.add_output(root.output_names[k], build(outputs[k]));
  }
  return graph;
}

}  // namespace saturate::eqsat
