// ONNX -> IR: opaque nodes, for every operator no mapping takes, typed by local inference when
// whole-model inference left their outputs untyped.
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "onnx/host_tensor.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"
#include "onnx/opaque_capsule.h"
#include "onnx/symbolic_folding.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::TensorProto;

// Whether inference gave a value an element type and every dimension.
bool fully_typed(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return false;
  if (type.tensor_type().elem_type() == TensorProto::UNDEFINED) return false;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim_from_onnx(dim)) return false;  // a size, or a name Saturate reads as a symbol
  }
  return true;
}

}  // namespace

using ir::OpKind;
using ir::ValueRef;
using ::onnx::ModelProto;
using ::onnx::NodeProto;

void Importer::infer_locally_if_untyped(const NodeProto& node) {
  bool untyped = false;
  for (int k = 0; k < node.output_size(); ++k) {
    if (!used(node, k)) continue;
    auto it = value_types_.find(node.output(k));
    if (it == value_types_.end() || !fully_typed(it->second)) untyped = true;
    // A graph output's type is what the model declares (`total_sequence_length`), not what its
    // inputs give (`past_sequence_length + sequence_length`): inferred here, the relation
    // between the two is learned (add_outputs) through an opaque last node too, such as the
    // Cast a float16 converter puts before each output.
    for (const auto& output : model_.graph().output()) untyped |= output.name() == node.output(k);
  }
  if (!untyped) return;
  // Whole-model inference stops typing values past an operator the ONNX library does not know
  // (a newer opset's Gelu, say, which the IR maps itself). Typed inputs are known here: infer
  // this one node on its own, with small constant inputs given by value for data-dependent
  // shapes (Reshape, Expand).
  // The ONNX library may know an older opset than the model's (Debian's 1.12 knows 17): the
  // node is inferred under the newest opset it knows, unless its operator changed after that.
  static const std::set<std::string> changed_after_17 = {"ReduceMax",
                                                         "ReduceMin",
                                                         "ReduceSum",
                                                         "ReduceMean",
                                                         "ReduceProd",
                                                         "ReduceL1",
                                                         "ReduceL2",
                                                         "ReduceLogSum",
                                                         "ReduceLogSumExp",
                                                         "ReduceSumSquare",
                                                         "Split",
                                                         "Pad",
                                                         "Resize",
                                                         "Col2Im",
                                                         "CenterCropPad",
                                                         "GroupNormalization",
                                                         "DFT",
                                                         "AffineGrid",
                                                         "Gelu",
                                                         "ConstantOfShape",
                                                         "DeformConv",
                                                         "ImageDecoder",
                                                         "RegexFullMatch",
                                                         "StringSplit"};
  const auto& ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int64_t known = ranges.contains("") ? ranges.at("").second : result_.opset;
  if (is_default_domain(node.domain()) && result_.opset > known &&
      changed_after_17.contains(node.op_type())) {
    return;
  }
  ModelProto single;
  single.set_ir_version(model_.ir_version());
  *single.mutable_opset_import() = model_.opset_import();
  for (auto& entry : *single.mutable_opset_import()) {
    if (is_default_domain(entry.domain())) entry.set_version(std::min(entry.version(), known));
  }
  auto* g = single.mutable_graph();
  g->set_name("node");
  *g->add_node() = node;
  std::set<std::string> declared;
  std::vector<std::string> read = {node.input().begin(), node.input().end()};
  for (const auto& name : outer_references(node)) read.push_back(name);
  for (const auto& name : read) {
    if (name.empty() || !declared.insert(name).second) continue;
    if (auto it = other_constants_.find(name); it != other_constants_.end()) {
      *g->add_initializer() = it->second;
      continue;
    }
    auto value = values_.find(name);
    if (value == values_.end()) continue;
    const ir::TensorType& type = graph().type(value->second);
    auto* info = g->add_input();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(to_onnx_elem_type(type.dtype));
    auto* shape = tensor->mutable_shape();  // present even for a scalar: rank 0 is known
    for (int64_t d : type.dims) set_onnx_dim(d, *shape->add_dim());
  }
  try {
    // No data propagation: nothing upstream to propagate in a one-node model, and ONNX 1.12's
    // can dereference a null type (fuzz_onnx_import).
    ::onnx::shape_inference::InferShapes(single, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {
    // Left untyped unless the subgraphs declare the types (below); static_type names the value.
  }
  for (const auto& info : single.graph().value_info()) {
    if (fully_typed(info.type())) value_types_[info.name()] = info.type();
  }
  type_from_subgraph_outputs(node);
}

void Importer::type_from_subgraph_outputs(const NodeProto& node) {
  // If: both branches declare an output's type; Loop: the body declares a loop-carried value's
  // type (its scan outputs grow by the trip count, which stays unknown).
  auto declared = [](const ::onnx::GraphProto& g, int k) -> const ::onnx::TypeProto* {
    if (k >= g.output_size() || !fully_typed(g.output(k).type())) return nullptr;
    return &g.output(k).type();
  };
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string& name = node.output(k);
    if (name.empty()) continue;
    if (auto it = value_types_.find(name); it != value_types_.end() && fully_typed(it->second)) {
      continue;
    }
    const ::onnx::TypeProto* type = nullptr;
    if (node.op_type() == "If") {
      const auto* then_branch = find_attr(node, "then_branch");
      const auto* else_branch = find_attr(node, "else_branch");
      if (then_branch == nullptr || else_branch == nullptr) return;
      type = declared(then_branch->g(), k);
      const auto* other = declared(else_branch->g(), k);
      if (type == nullptr || other == nullptr ||
          type->SerializeAsString() != other->SerializeAsString()) {
        type = nullptr;
      }
    } else if (node.op_type() == "Loop") {
      const auto* body = find_attr(node, "body");
      int carried = node.input_size() - 2;
      if (body == nullptr || k >= carried) continue;
      type = declared(body->g(), k + 1);
    }
    if (type != nullptr) value_types_[name] = *type;
  }
}

void Importer::import_opaque(const NodeProto& node) {
  OpaqueCapsule capsule;
  *capsule.node.mutable_attribute() = node.attribute();
  std::vector<ValueRef> inputs;
  std::set<std::string> embedded;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      capsule.node.add_input("");
    } else if (auto it = values_.find(name); it != values_.end()) {
      capsule.node.add_input(kIrValueMarker);
      inputs.push_back(it->second);
    } else if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      capsule.node.add_input(name);
      if (embedded.insert(name).second) capsule.constants.push_back(other->second);
    } else {
      fail("unknown value name " + name + " (input of " + describe(node) +
           "): no graph input, initializer or earlier node defines it");
    }
  }
  for (const auto& name : outer_references(node)) {
    capsule.implicit_inputs.push_back(name);
    if (auto it = values_.find(name); it != values_.end()) {
      inputs.push_back(it->second);
    } else if (auto other = other_constants_.find(name); other != other_constants_.end()) {
      capsule.implicit_inputs.pop_back();  // embedded under its own name, which export keeps
      if (embedded.insert(name).second) capsule.constants.push_back(other->second);
    } else {
      fail("unknown value name " + name + " (read inside a subgraph of " + describe(node) +
           "): no graph input, initializer or earlier node defines it");
    }
  }
  std::vector<std::string> names;
  std::string types;
  infer_locally_if_untyped(node);
  for (int k = 0; k < node.output_size(); ++k) {
    if (node.output(k).empty()) {
      capsule.node.add_output("");
    } else if (!used(node, k)) {
      capsule.node.add_output(kUnusedOutputMarker);  // written back under a fresh name
    } else {
      capsule.node.add_output(kIrValueMarker);
      names.push_back(node.output(k));
      ir::TensorType type = static_type(node.output(k), &node);
      types += (types.empty() ? "" : ";") + ir::to_string(type);
    }
  }
  if (names.empty()) return;  // nothing reads it: dropped
  uint64_t capsule_bytes = capsule.node.ByteSizeLong();
  for (const auto& constant : capsule.constants) capsule_bytes += constant.ByteSizeLong();
  if (capsule_bytes > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    fail(describe(node) + ": its attributes and constant inputs take " +
         std::to_string(capsule_bytes) +
         " bytes, past protobuf's 2 GB limit for the opaque node that carries them");
  }
  ir::Attributes attrs{{"op_type", node.op_type()},
                       {"domain", node.domain()},
                       {"onnx_attributes", encode_capsule(capsule)},
                       {"output_types", types}};
  ir::NodeId id = 0;
  try {
    id = graph().add_node(OpKind::Opaque, std::move(inputs), attrs, names);
  } catch (const Error& error) {
    fail(describe(node) + ": " + error.what());
  }
  for (size_t k = 0; k < names.size(); ++k) values_[names[k]] = {id, static_cast<uint32_t>(k)};
}

}  // namespace saturate::onnx
