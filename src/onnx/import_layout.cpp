// ONNX -> IR: layout and shape (Concat, Split, Slice, Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Pad).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ir/symbolic_dim.h"
#include "onnx/fold_kernels.h"
#include "onnx/node_attributes.h"
#include "onnx/onnx_importer.h"

namespace saturate::onnx {

using ir::OpKind;
using ir::ValueRef;
using ::onnx::NodeProto;

bool Importer::import_layout(const NodeProto& node) {
  const std::string& op = node.op_type();
  auto out = [&](int k = 0) -> const std::string& { return node.output(k); };
  if (op == "Concat") {
    std::vector<ValueRef> inputs;
    for (int k = 0; k < node.input_size(); ++k) inputs.push_back(input(node, k));
    require(!inputs.empty());
    int64_t axis =
        normalize_axis(attr_int(node, "axis", 0), static_cast<int64_t>(dims(inputs[0]).size()));
    add(OpKind::Concat, inputs, {{"axis", axis}}, out());
    return true;
  }
  if (op == "Split") {
    import_split(node);
    return true;
  }
  if (op == "Slice") {
    import_slice(node);
    return true;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    import_reshape_like(node);
    return true;
  }
  if (op == "Transpose") {
    ValueRef x = input(node, 0);
    auto rank = static_cast<int64_t>(dims(x).size());
    std::vector<int64_t> perm;
    for (int64_t a = rank - 1; a >= 0; --a) perm.push_back(a);
    perm = attr_ints(node, "perm").value_or(perm);
    add(OpKind::Transpose, {x}, {{"perm", perm}}, out());
    return true;
  }
  if (op == "Pad") {
    ValueRef x = input(node, 0);
    require(attr_string(node, "mode", "constant") == "constant");
    require(!has_input(node, 3));  // axes (opset 18)
    if (has_input(node, 2)) require(constant_scalar(node, 2) == 0.0);
    auto pads = constant_ints(node, 1);
    require(pads && pads->size() == 2 * dims(x).size());
    for (int64_t p : *pads) require(p >= 0);
    add(OpKind::Pad, {x}, {{"pads", *pads}}, out());
    return true;
  }
  return false;
}

void Importer::import_split(const NodeProto& node) {
  ValueRef x = input(node, 0);
  auto rank = static_cast<int64_t>(dims(x).size());
  int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
  int64_t size = dims(x)[static_cast<size_t>(axis)];
  require(!ir::is_symbolic(size));  // the parts' sizes would depend on the symbols
  int64_t parts = node.output_size();
  std::optional<std::vector<int64_t>> sizes =
      result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "split");
  if (!sizes) {
    int64_t count = result_.opset >= 18 ? attr_int(node, "num_outputs", parts) : parts;
    require(count == parts && count > 0);
    int64_t chunk = (size + count - 1) / count;
    sizes = std::vector<int64_t>{};
    for (int64_t k = 0; k < count; ++k) sizes->push_back(std::min(chunk, size - k * chunk));
  }
  require(static_cast<int64_t>(sizes->size()) == parts);
  std::vector<std::string> names;
  for (int k = 0; k < node.output_size(); ++k) {
    require(!node.output(k).empty());
    names.push_back(node.output(k));
  }
  ir::NodeId id = graph().add_node(OpKind::Split, {x}, {{"axis", axis}, {"sizes", *sizes}}, names);
  for (size_t k = 0; k < names.size(); ++k) values_[names[k]] = {id, static_cast<uint32_t>(k)};
}

void Importer::import_slice(const NodeProto& node) {
  ValueRef x = input(node, 0);
  const ir::Dims& in = dims(x);
  const auto rank = static_cast<int64_t>(in.size());
  // Bounds are inputs from opset 10 (import reads opset 11 on).
  std::optional<std::vector<int64_t>> starts = constant_ints(node, 1);
  std::optional<std::vector<int64_t>> ends = constant_ints(node, 2);
  std::optional<std::vector<int64_t>> axes =
      has_input(node, 3) ? constant_ints(node, 3) : std::nullopt;
  std::optional<std::vector<int64_t>> steps =
      has_input(node, 4) ? constant_ints(node, 4) : std::nullopt;
  require(!has_input(node, 3) || axes);
  require(!has_input(node, 4) || steps);
  require(starts && ends && starts->size() == ends->size());
  const size_t count = starts->size();
  if (!axes) {
    axes = std::vector<int64_t>(count);
    for (size_t i = 0; i < count; ++i) (*axes)[i] = static_cast<int64_t>(i);
  }
  require(axes->size() == count && (!steps || steps->size() == count));
  // ONNX's bounds, made concrete: negative ones count from the end, both clamp to the axis.
  struct Cut {
    int64_t axis, start, end;
  };
  std::vector<Cut> cuts;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < count; ++i) {
    int64_t axis = normalize_axis((*axes)[i], rank);
    require(!seen[static_cast<size_t>(axis)]);
    seen[static_cast<size_t>(axis)] = true;
    require(!steps || (*steps)[i] == 1);  // strided and reversed slices stay opaque
    const int64_t size = in[static_cast<size_t>(axis)];
    if (ir::is_symbolic(size)) {
      // Decided for every size only from a start no size is below to an end past any size
      // (the IR's slice to the end of a symbolic axis).
      const int64_t start = (*starts)[i];
      require(start >= 0 && start <= ir::dim_least_value(size) && (*ends)[i] >= ir::kMaxElements);
      if (start != 0) cuts.push_back({axis, start, std::numeric_limits<int64_t>::max()});
      continue;
    }
    int64_t start = forward_slice_bound((*starts)[i], size);
    int64_t end = forward_slice_bound((*ends)[i], size);
    require(start < end);  // an empty slice stays opaque
    if (start != 0 || end != size) cuts.push_back({axis, start, end});
  }
  if (cuts.empty()) {
    values_[node.output(0)] = x;  // the whole tensor: an alias
    return;
  }
  for (size_t i = 0; i < cuts.size(); ++i) {
    const std::string name = i + 1 == cuts.size() ? node.output(0) : fresh(node.output(0));
    x = add(OpKind::Slice, {x},
            {{"axis", cuts[i].axis}, {"start", cuts[i].start}, {"end", cuts[i].end}}, name);
  }
}

void Importer::import_reshape_like(const NodeProto& node) {
  const std::string& op = node.op_type();
  ValueRef x = input(node, 0);
  const ir::Dims& in = dims(x);
  auto rank = static_cast<int64_t>(in.size());
  ir::Dims shape;
  if (op == "Reshape") {
    auto target = constant_ints(node, 1);
    require(target.has_value());
    bool allow_zero = attr_int(node, "allowzero", 0) == 1;
    shape = *target;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0) {
        require(!allow_zero && i < in.size());
        shape[i] = in[i];
      }
    }
    int64_t known = 1;
    int inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        require(inferred < 0);
        inferred = static_cast<int>(i);
      } else {
        require(ir::is_symbolic(shape[i]) || shape[i] > 0);
        known = ir::dim_product(known, shape[i]);
      }
    }
    if (inferred >= 0) {
      // Decided on the normal form: (batch*sequence*768) / (batch*12*64) is sequence.
      auto rest = ir::dim_quotient(ir::dim_product(in), known);
      require(rest && (ir::is_symbolic(*rest) || *rest > 0));
      shape[static_cast<size_t>(inferred)] = *rest;
    }
  } else if (op == "Flatten") {
    int64_t axis = attr_int(node, "axis", 1);
    require(axis >= -rank && axis <= rank);
    if (axis < 0) axis += rank;
    ir::Dims outer(in.begin(), in.begin() + axis);
    ir::Dims inner(in.begin() + axis, in.end());
    shape = {ir::dim_product(outer), ir::dim_product(inner)};
  } else if (op == "Squeeze") {
    auto axes = result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "axes");
    std::vector<bool> drop(in.size(), false);
    if (!axes) {
      for (size_t a = 0; a < in.size(); ++a) drop[a] = in[a] == 1;
    } else {
      for (int64_t a : *axes) {
        int64_t axis = normalize_axis(a, rank);
        require(in[static_cast<size_t>(axis)] == 1);
        drop[static_cast<size_t>(axis)] = true;
      }
    }
    for (size_t a = 0; a < in.size(); ++a) {
      if (!drop[a]) shape.push_back(in[a]);
    }
  } else {  // Unsqueeze
    auto axes = result_.opset >= 13 ? constant_ints(node, 1) : attr_ints(node, "axes");
    require(axes.has_value());
    int64_t out_rank = rank + static_cast<int64_t>(axes->size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : *axes) {
      int64_t axis = normalize_axis(a, out_rank);
      require(!inserted[static_cast<size_t>(axis)]);
      inserted[static_cast<size_t>(axis)] = true;
    }
    size_t next = 0;
    for (int64_t a = 0; a < out_rank; ++a) {
      shape.push_back(inserted[static_cast<size_t>(a)] ? 1 : in[next++]);
    }
  }
  // Exporters with dynamic axes view a tensor as heads and straight back through a target
  // computed from Shape (`(B*N, S, H)` -> `(B, N, S, H)` -> `(B*N, S, H)`); the rules match
  // neither the chain nor a no-op. A reshape of a reshape reads the first one's input (row-major
  // order is the same), and a reshape to its input's own dims is that input.
  const ir::Node& producer = graph().node(x.node);
  if (producer.op == OpKind::Reshape) x = producer.inputs.front();
  auto is_graph_output = [&] {
    return std::any_of(model_.graph().output().begin(), model_.graph().output().end(),
                       [&](const auto& info) { return info.name() == node.output(0); });
  };
  if (dims(x) == shape && !is_graph_output()) {
    values_[node.output(0)] = x;
    return;
  }
  reshape(x, shape, node.output(0));
}

}  // namespace saturate::onnx
