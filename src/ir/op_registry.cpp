#include "ir/op_registry.h"

#include <unordered_map>

#include "support/error.h"

namespace saturate::ir {

std::vector<OpInfo> make_operator_table();  // operators.cpp

namespace {

struct Registry {
  std::vector<OpInfo> ops;
  std::unordered_map<std::string, OpKind> by_name;

  Registry() {
    std::vector<OpInfo> table = make_operator_table();
    ops.resize(table.size());
    for (auto& info : table) {
      auto index = static_cast<size_t>(info.kind);
      by_name.emplace(info.name, info.kind);
      ops[index] = std::move(info);
    }
  }
};

const Registry& registry() {
  static const Registry instance;
  return instance;
}

}  // namespace

const AttrSpec* OpInfo::find_attribute(std::string_view attr_name) const {
  for (const auto& spec : attributes) {
    if (spec.name == attr_name) return &spec;
  }
  return nullptr;
}

const OpInfo& op_info(OpKind kind) {
  return registry().ops.at(static_cast<size_t>(kind));
}

std::optional<OpKind> find_op(std::string_view name) {
  const auto& by_name = registry().by_name;
  auto it = by_name.find(std::string(name));
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

const std::vector<OpInfo>& all_ops() {
  return registry().ops;
}

Attributes complete_attributes(const OpInfo& info, const Attributes& given) {
  for (const auto& [name, value] : given.entries()) {
    const AttrSpec* spec = info.find_attribute(name);
    if (spec == nullptr) {
      throw Error("operator '" + info.name + "' has no attribute '" + name + "'");
    }
    if (!holds_kind(value, spec->kind)) {
      throw Error("attribute '" + name + "' of '" + info.name + "' must be " +
                  std::string(to_string(spec->kind)));
    }
  }
  Attributes complete = given;
  for (const auto& spec : info.attributes) {
    if (complete.has(spec.name)) continue;
    if (!spec.default_value) {
      throw Error("operator '" + info.name + "' needs attribute '" + spec.name + "' (" +
                  std::string(to_string(spec.kind)) + ")");
    }
    complete.set(spec.name, *spec.default_value);
  }
  // Enumerations are range-checked here so that nothing downstream sees a bad code.
  for (const auto& spec : info.attributes) {
    if (spec.kind == AttrKind::Activation) {
      const Activation activation = complete.get_activation(spec.name);
      if (has_parameters(activation) && info.find_attribute("activation_alpha") == nullptr) {
        throw Error("operator '" + info.name + "' fuses none, sigmoid, relu or tanh, not " +
                    std::string(to_string(activation)) +
                    " (an activation with parameters is fused_conv's)");
      }
    }
    if (spec.kind == AttrKind::Padding) complete.get_padding(spec.name);
  }
  return complete;
}

std::vector<TensorType> infer_types(OpKind kind, const std::vector<TensorType>& inputs,
                                    const Attributes& attrs) {
  const OpInfo& info = op_info(kind);
  int count = static_cast<int>(inputs.size());
  if (count < info.min_inputs ||
      (info.max_inputs != OpInfo::kVariadic && count > info.max_inputs)) {
    std::string expected = std::to_string(info.min_inputs);
    if (info.max_inputs == OpInfo::kVariadic) {
      expected += " or more";
    } else if (info.max_inputs != info.min_inputs) {
      expected += " to " + std::to_string(info.max_inputs);
    }
    throw Error("operator '" + info.name + "' takes " + expected + " inputs, got " +
                std::to_string(count));
  }
  // Arithmetic is defined on floating-point values only: a rule written for float tensors never
  // applies to token ids, shape arithmetic or masks (those stay opaque ONNX operators).
  if (computes_arithmetic(info)) {
    for (const auto& input : inputs) {
      if (!is_floating(input.dtype)) {
        throw Error("operator '" + info.name + "' computes on floating-point tensors, got " +
                    to_string(input));
      }
    }
  }
  std::vector<TensorType> outputs = info.infer(inputs, complete_attributes(info, attrs));
  // Every value's element count stays below kMaxElements, so no later product of dimensions
  // (cost models, kernels, export) overflows.
  for (const auto& output : outputs) {
    if (output.dims.empty()) continue;
    if (auto problem = shape_problem(output.dims)) {
      throw Error("operator '" + info.name + "' would give " + to_string(output) + ": " + *problem);
    }
  }
  return outputs;
}

bool computes_arithmetic(const OpInfo& info) {
  switch (info.category) {
    case OpCategory::Elementwise:
    case OpCategory::Contraction:
    case OpCategory::Reduction:
      return true;
    case OpCategory::Leaf:
    case OpCategory::Layout:
      return false;
    case OpCategory::Other:
      return info.kind == OpKind::BatchNorm;
  }
  return false;
}

}  // namespace saturate::ir
