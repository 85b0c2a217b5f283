// IR -> ONNX: layout and shape (Transpose, Enlarge, Pad, Concat, Split, Slice, Reshape; merge
// has no ONNX operator).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/symbolic_dim.h"
#include "onnx/onnx_exporter.h"
#include "support/error.h"

namespace saturate::onnx {

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

bool Exporter::emit_layout(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const ir::Attributes& attrs = node.attrs;
  const std::string& y = names_[id][0];
  auto in = [&](size_t k) { return name_of(node.inputs.at(k)); };
  switch (node.op) {
    case OpKind::Transpose: {
      NodeProto& t = add_node("Transpose", {in(0)}, {y});
      add_attr(t, "perm", attrs.get_ints("perm"));
      return true;
    }
    case OpKind::Enlarge: {
      const ir::Dims& k = dims(node.inputs[0]);
      const ir::Dims& out = node.outputs[0].dims;
      int64_t top = (out[2] - k[2]) / 2;
      int64_t left = (out[3] - k[3]) / 2;
      std::vector<int64_t> pads{0, 0, top, left, 0, 0, out[2] - k[2] - top, out[3] - k[3] - left};
      add_node("Pad", {in(0), ints_initializer(pads, y + "_pads")}, {y});
      return true;
    }
    case OpKind::Pad:
      add_node("Pad", {in(0), ints_initializer(attrs.get_ints("pads"), y + "_pads")}, {y});
      return true;
    case OpKind::Concat: {
      std::vector<std::string> inputs;
      for (size_t k = 0; k < node.inputs.size(); ++k) inputs.push_back(in(k));
      NodeProto& concat = add_node("Concat", inputs, {y});
      add_attr(concat, "axis", attrs.get_int("axis"));
      return true;
    }
    case OpKind::Split: {
      const auto& sizes = attrs.get_ints("sizes");
      std::vector<std::string> inputs{in(0)};
      if (opset_ >= 13) inputs.push_back(ints_initializer(sizes, y + "_sizes"));
      NodeProto& split = add_node("Split", inputs, names_[id]);
      add_attr(split, "axis", attrs.get_int("axis"));
      if (opset_ < 13) add_attr(split, "split", sizes);
      return true;
    }
    case OpKind::Merge:
      throw Error("node '" + node.name() +
                  "' (merge) reads a value that is not a weight: ONNX has no operator for it");
    case OpKind::Slice:
      emit_slice(in(0), attrs.get_int("axis"), attrs.get_int("start"), attrs.get_int("end"), y);
      return true;
    case OpKind::Reshape:
      add_node("Reshape", {in(0), reshape_target(id, y + "_shape")}, {y});
      return true;
    default:
      return false;
  }
}

void Exporter::emit_slice(const std::string& x, int64_t axis, int64_t start, int64_t end,
                          const std::string& y) {
  // Bounds as inputs (opset 10 on; export writes opset 11 or later).
  add_node("Slice",
           {x, ints_initializer({start}, y + "_starts"), ints_initializer({end}, y + "_ends"),
            ints_initializer({axis}, y + "_axes")},
           {y});
}

}  // namespace saturate::onnx

namespace saturate::onnx {

std::string Exporter::reshape_target(ir::NodeId id, const std::string& base) {
  const ir::Node& node = graph_.node(id);
  const ir::Dims& out = node.outputs[0].dims;
  if (!ir::has_symbolic(out)) return ints_initializer(out, base);
  const ir::Dims& in = dims(node.inputs[0]);
  // 0 copies the input's dim at the same axis; one -1 takes what is left.
  std::vector<int64_t> target;
  bool inferred = false;
  bool expressible = true;
  for (size_t i = 0; i < out.size() && expressible; ++i) {
    if (!ir::is_symbolic(out[i])) {
      target.push_back(out[i]);
    } else if (i < in.size() && in[i] == out[i]) {
      target.push_back(0);
    } else if (!inferred) {
      target.push_back(-1);
      inferred = true;
    } else {
      expressible = false;
    }
  }
  if (expressible) return ints_initializer(target, base);
  return shape_tensor(out, id, base, "node '" + node.name() + "' (reshape)");
}

std::string Exporter::shape_tensor(const ir::Dims& dims, ir::NodeId before, const std::string& base,
                                   const std::string& what) {
  if (!ir::has_symbolic(dims)) return ints_initializer(dims, base);
  std::vector<std::string> parts;
  for (int64_t dim : dims) {
    parts.push_back(ir::is_symbolic(dim) ? dim_tensor(dim, before, base, what)
                                         : ints_initializer({dim}, base + "_dim"));
  }
  std::string target_name = fresh(base);
  add_attr(add_node("Concat", parts, {target_name}), "axis", int64_t{0});
  return target_name;
}

std::string Exporter::dim_tensor(int64_t dim, ir::NodeId before, const std::string& base,
                                 const std::string& what) {
  // The first value, in SSA order, that the written model computes and that has this dim.
  std::optional<std::pair<ir::ValueRef, int64_t>> carrier;
  if (auto cached = dim_carriers_.find(dim);
      cached != dim_carriers_.end() && cached->second.first.node < before) {
    carrier = cached->second;
  }
  for (ir::NodeId other = 0; other < before && !carrier; ++other) {
    const ir::Node& earlier = graph_.node(other);
    if (!needed_[other] || known_[other] || is_alias(earlier)) continue;
    for (size_t k = 0; k < earlier.outputs.size() && !carrier; ++k) {
      const ir::Dims& d = earlier.outputs[k].dims;
      auto found = std::find(d.begin(), d.end(), dim);
      if (found != d.end()) {
        carrier = {{other, static_cast<uint32_t>(k)}, static_cast<int64_t>(found - d.begin())};
      }
    }
  }
  if (carrier) {
    dim_carriers_.emplace(dim, *carrier);  // the earliest: valid for later nodes
    std::string part = fresh(base + "_dim");
    if (opset_ >= 15) {
      auto& shape = add_node("Shape", {name_of(carrier->first)}, {part});
      add_attr(shape, "start", carrier->second);
      add_attr(shape, "end", carrier->second + 1);
    } else {
      std::string whole = fresh(base + "_of");
      add_node("Shape", {name_of(carrier->first)}, {whole});
      add_node("Gather", {whole, ints_initializer({carrier->second}, base + "_axis")}, {part});
    }
    return part;
  }
  // No value has it whole: computed from its symbols (4*batch from batch), each of which some
  // value carries.
  const ir::DimExpr expr = ir::to_expr(dim);
  const bool single_symbol = expr.denominator() == 1 && expr.terms().size() == 1 &&
                             expr.terms()[0].first.size() == 1 && expr.terms()[0].second == 1;
  if (single_symbol) {
    throw Error(what + " needs the dimension " + ir::dim_to_string(dim) +
                ", which no earlier value carries: it cannot be written for every size");
  }
  auto binary = [&](const char* op, const std::string& a, const std::string& b) {
    std::string out = fresh(base + "_dim");
    add_node(op, {a, b}, {out});
    return out;
  };
  std::string sum;
  for (const auto& [monomial, coefficient] : expr.terms()) {
    std::string term;
    for (ir::SymbolId id : monomial) {
      std::string factor = dim_tensor(ir::symbol_dim(id), before, base, what);
      term = term.empty() ? factor : binary("Mul", term, factor);
    }
    int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
    if (term.empty()) {
      term = ints_initializer({magnitude}, base + "_const");
    } else if (magnitude != 1) {
      term = binary("Mul", term, ints_initializer({magnitude}, base + "_const"));
    }
    if (sum.empty()) {
      sum = coefficient < 0 ? binary("Sub", ints_initializer({0}, base + "_const"), term) : term;
    } else {
      sum = binary(coefficient < 0 ? "Sub" : "Add", sum, term);
    }
  }
  if (expr.denominator() != 1) {
    sum = binary("Div", sum, ints_initializer({expr.denominator()}, base + "_const"));
  }
  return sum;
}

}  // namespace saturate::onnx
