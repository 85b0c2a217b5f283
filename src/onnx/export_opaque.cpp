// IR -> ONNX: opaque nodes restored exactly (op type, domain, attributes, embedded constants).
#include <climits>
#include <set>
#include <string>
#include <unordered_map>

#include "onnx/onnx_exporter.h"
#include "onnx/opaque_capsule.h"
#include "support/error.h"

namespace saturate::onnx {

using ir::NodeId;
using ::onnx::NodeProto;
using ::onnx::TensorProto;

void Exporter::emit_opaque(NodeId id) {
  const ir::Node& node = graph_.node(id);
  OpaqueCapsule capsule = decode_capsule(node.attrs.get_string("onnx_attributes"), node.name());
  // Outer values the subgraphs read by name (the last IR inputs): visible under that name again.
  if (capsule.implicit_inputs.size() > node.inputs.size()) {
    throw Error("opaque node '" + node.name() + "' has fewer inputs than its subgraphs read");
  }
  const size_t explicit_inputs = node.inputs.size() - capsule.implicit_inputs.size();
  for (size_t k = 0; k < capsule.implicit_inputs.size(); ++k) {
    const std::string& wanted = capsule.implicit_inputs[k];
    const std::string& have = name_of(node.inputs[explicit_inputs + k]);
    if (have == wanted) continue;
    if (taken_.contains(wanted)) {
      throw Error("cannot export control-flow node '" + node.name() + "': its subgraph reads " +
                  wanted + ", a name the optimized graph gives another value");
    }
    taken_.insert(wanted);
    add_node("Identity", {have}, {wanted});
  }
  std::set<std::string> read_by_subgraphs;
  if (!capsule.implicit_inputs.empty() || !capsule.constants.empty()) {
    for (const auto& name : outer_references(capsule.node)) read_by_subgraphs.insert(name);
  }
  NodeProto& out = *out_->add_node();
  out.set_op_type(node.attrs.get_string("op_type"));
  out.set_domain(node.attrs.get_string("domain"));
  out.set_name(fresh(names_[id][0] + "/" + out.op_type()));
  *out.mutable_attribute() = capsule.node.attribute();
  if (capsule.node.input_size() == 0 && capsule.node.output_size() == 0) {
    for (size_t k = 0; k < node.inputs.size(); ++k) capsule.node.add_input(kIrValueMarker);
    for (size_t k = 0; k < node.outputs.size(); ++k) capsule.node.add_output(kIrValueMarker);
  }
  std::unordered_map<std::string, std::string> constant_names;
  for (const auto& constant : capsule.constants) {
    if (constant.ByteSizeLong() > static_cast<size_t>(INT_MAX)) {
      throw Error("cannot export opaque node '" + node.name() + "': its constant " +
                  constant.name() + " is past protobuf's 2 GB limit");
    }
    std::string bytes = constant.SerializeAsString();
    std::string name = constant.name();
    auto it = embedded_.find(name);
    if (it == embedded_.end() || it->second != bytes) {
      // A constant this export has not written yet (or a different one of the same name).
      if (taken_.contains(name)) {
        if (read_by_subgraphs.contains(name)) {
          throw Error("cannot export control-flow node '" + node.name() +
                      "': its subgraph reads constant " + name +
                      ", a name the optimized graph gives another value");
        }
        name = fresh(name);
      }
      taken_.insert(name);
      embedded_[name] = bytes;
      TensorProto& initializer = *out_->add_initializer();
      initializer = constant;
      initializer.set_name(name);
    }
    constant_names[constant.name()] = name;
  }
  size_t next_input = 0;
  for (const auto& marker : capsule.node.input()) {
    if (marker == kIrValueMarker) {
      if (next_input >= explicit_inputs) {
        throw Error("opaque node '" + node.name() + "' has fewer inputs than its ONNX node");
      }
      out.add_input(name_of(node.inputs[next_input++]));
    } else if (marker.empty()) {
      out.add_input("");
    } else {
      auto it = constant_names.find(marker);
      if (it == constant_names.end()) {
        throw Error("opaque node '" + node.name() + "' refers to a missing constant " + marker);
      }
      out.add_input(it->second);
    }
  }
  if (next_input != explicit_inputs) {
    throw Error("opaque node '" + node.name() + "' has more inputs than its ONNX node");
  }
  size_t next_output = 0;
  for (const auto& marker : capsule.node.output()) {
    if (marker == kIrValueMarker) {
      if (next_output >= names_[id].size()) {
        throw Error("opaque node '" + node.name() + "' has fewer outputs than its ONNX node");
      }
      out.add_output(names_[id][next_output++]);
    } else if (marker.empty()) {
      out.add_output("");
    } else {
      out.add_output(fresh(names_[id][0] + "_unused"));
    }
  }
  if (next_output != names_[id].size()) {
    throw Error("opaque node '" + node.name() + "' has more outputs than its ONNX node");
  }
  // ONNX cannot infer an unknown operator's outputs: their types go into value_info.
  std::set<std::string> graph_outputs;
  for (const auto& output : graph_.outputs()) graph_outputs.insert(output.name);
  for (size_t k = 0; k < names_[id].size(); ++k) {
    if (!graph_outputs.contains(names_[id][k])) {
      set_tensor_type(*out_->add_value_info(), names_[id][k], node.outputs[k], &source_.dim_names);
    }
  }
}

}  // namespace saturate::onnx
