#include "onnx/symbolic_folding.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "ir/symbolic_dim.h"
#include "onnx/fold_kernels.h"
#include "onnx/node_attributes.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::NodeProto;
using ::onnx::TensorProto;
using Inputs = std::vector<const HostTensor*>;
using Tensors = std::vector<HostTensor>;

// Whether `op` moves the elements of input `k` without computing on them (the data of Gather,
// Slice, Reshape, ...; every operand of Concat; the branches of Where), so that the input may
// hold symbolic dims; never an index, an axis list or a shape. nullopt: `op` moves no elements.
std::optional<bool> moves_input(const std::string& op, size_t k) {
  static const std::set<std::string> movers_of_first = {
      "Gather", "Unsqueeze", "Squeeze", "Reshape", "Identity", "Slice", "Flatten", "Cast"};
  if (movers_of_first.contains(op)) return k == 0;
  if (op == "Where") return k == 1 || k == 2;
  if (op == "Concat") return true;
  return std::nullopt;
}

// Numpy broadcasting, decided per axis for every size: equal dims, or one of them 1.
std::optional<ir::Dims> broadcast_dims(const ir::Dims& a, const ir::Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  ir::Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (!ir::is_symbolic(y) && y < 0) return std::nullopt;
    if (x == y || y == 1) {
      out[i] = x;
    } else if (x == 1) {
      out[i] = y;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

bool is_int64(const HostTensor* t) {
  return t != nullptr && t->elem_type == TensorProto::INT64;
}

// Elementwise over two int64 tensors where one is a scalar or both have the same size.
template <typename Combine>
std::optional<Tensors> elementwise(const Inputs& in, int32_t out_type, Combine combine) {
  if (in.size() != 2 || !is_int64(in[0]) || !is_int64(in[1])) return std::nullopt;
  const HostTensor& a = *in[0];
  const HostTensor& b = *in[1];
  const HostTensor& shaped = a.size() >= b.size() ? a : b;
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  if (a.size() != b.size() && std::min(a.size(), b.size()) == 1 &&
      std::min(a.dims.size(), b.dims.size()) > shaped.dims.size()) {
    return std::nullopt;
  }
  HostTensor out;
  out.elem_type = out_type;
  out.dims = shaped.dims;
  for (int64_t i = 0; i < shaped.size(); ++i) {
    int64_t x = a.ints[static_cast<size_t>(a.size() == 1 ? 0 : i)];
    int64_t y = b.ints[static_cast<size_t>(b.size() == 1 ? 0 : i)];
    std::optional<int64_t> value = combine(x, y);
    if (!value) return std::nullopt;
    out.ints.push_back(*value);
  }
  return Tensors{out};
}

// Whether `symbolic` can equal `constant` for some value of its symbols: decided only when the
// constant is below the dim's least value (then never).
std::optional<bool> symbolic_equals(int64_t x, int64_t y) {
  if (x == y) return true;
  if (!ir::is_symbolic(x) && !ir::is_symbolic(y)) return false;
  if (ir::is_symbolic(x) && ir::is_symbolic(y)) return std::nullopt;
  int64_t symbolic = ir::is_symbolic(x) ? x : y;
  int64_t constant = ir::is_symbolic(x) ? y : x;
  if (constant < ir::dim_least_value(symbolic)) return false;
  return std::nullopt;
}

std::optional<int64_t> symbolic_extreme(int64_t x, int64_t y, bool max) {
  if (x == y) return x;
  if (!ir::is_symbolic(x) && !ir::is_symbolic(y)) return max ? std::max(x, y) : std::min(x, y);
  if (ir::is_symbolic(x) && ir::is_symbolic(y)) return std::nullopt;
  int64_t symbolic = ir::is_symbolic(x) ? x : y;
  int64_t constant = ir::is_symbolic(x) ? y : x;
  if (constant <= ir::dim_least_value(symbolic)) return max ? symbolic : constant;
  return std::nullopt;
}

std::optional<Tensors> fold_arithmetic(const std::string& op, const Inputs& in) {
  auto int64_type = static_cast<int32_t>(TensorProto::INT64);
  if (op == "Add") {
    return elementwise(in, int64_type, [](int64_t x, int64_t y) -> std::optional<int64_t> {
      return ir::dim_sum(x, y);
    });
  }
  if (op == "Sub") {
    return elementwise(in, int64_type, [](int64_t x, int64_t y) -> std::optional<int64_t> {
      return ir::dim_difference(x, y);
    });
  }
  if (op == "Mul") {
    return elementwise(in, int64_type, [](int64_t x, int64_t y) -> std::optional<int64_t> {
      return ir::dim_product(x, y);
    });
  }
  if (op == "Div") {
    // ONNX integer division truncates; a symbolic quotient is taken only where it is exact.
    return elementwise(in, int64_type, [](int64_t x, int64_t y) -> std::optional<int64_t> {
      if (!ir::is_symbolic(x) && !ir::is_symbolic(y)) {
        if (y == 0) return std::nullopt;
        return x / y;
      }
      return ir::dim_quotient(x, y);
    });
  }
  if (op == "Max" || op == "Min") {
    bool max = op == "Max";
    return elementwise(in, int64_type,
                       [max](int64_t x, int64_t y) { return symbolic_extreme(x, y, max); });
  }
  if (op == "Equal") {
    return elementwise(in, TensorProto::BOOL, [](int64_t x, int64_t y) -> std::optional<int64_t> {
      auto equal = symbolic_equals(x, y);
      if (!equal) return std::nullopt;
      return *equal ? 1 : 0;
    });
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> dim_from_onnx(const ::onnx::TensorShapeProto_Dimension& dim) {
  if (dim.has_dim_value()) {
    if (dim.dim_value() < 0) return std::nullopt;
    return dim.dim_value();
  }
  if (!dim.has_dim_param() || dim.dim_param().empty()) return std::nullopt;
  const std::string& name = dim.dim_param();
  // ONNX's inference names unknown dims unk__N afresh on every run: no size is named.
  if (name.rfind("unk__", 0) == 0) return std::nullopt;
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // A cache's past length is empty on the first step: the only dim exporters name that may be
  // 0. Its symbol is made with that bound before an expression reads it.
  bool cache_length = lower.find("past") != std::string::npos;
  bool plain_name = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ':';
  });
  if (plain_name) return ir::symbol_dim(ir::symbol_named(name, cache_length ? 0 : 1));
  if (auto parsed = ir::parse_dim(name)) return *parsed;
  // Not an expression Saturate reads: one symbol named by the whole text.
  return ir::symbol_dim(ir::symbol_named(name, 1));
}

std::optional<ir::Dims> dims_from_onnx(const ::onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  ir::Dims dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    auto value = dim_from_onnx(dim);
    if (!value) return std::nullopt;
    dims.push_back(*value);
  }
  return dims;
}

std::string symbol_base(std::string_view name) {
  std::string base;
  for (char c : name) {
    base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  }
  while (!base.empty() && base.front() == '_') base.erase(base.begin());
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base.front()))) base = "d" + base;
  return base;
}

void set_onnx_dim(int64_t dim, ::onnx::TensorShapeProto_Dimension& out) {
  if (ir::is_symbolic(dim)) {
    out.set_dim_param(ir::dim_to_string(dim));
  } else {
    out.set_dim_value(dim);
  }
}

bool holds_symbolic(const HostTensor& tensor) {
  return !tensor.is_real() && ir::has_symbolic(tensor.ints);
}

std::optional<std::vector<HostTensor>> fold_symbolic(const NodeProto& node, const Inputs& inputs,
                                                     int64_t opset) {
  if (!is_default_domain(node.domain())) return std::nullopt;
  const std::string& op = node.op_type();
  try {
    if (moves_input(op, 0)) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k] != nullptr && holds_symbolic(*inputs[k]) && !*moves_input(op, k)) {
          return std::nullopt;
        }
      }
      // A cast to a narrower type would cut the handles; to int64 it moves them.
      if (op == "Cast" && attr_int(node, "to", 0) != TensorProto::INT64) return std::nullopt;
      FoldContext context;
      context.opset = opset;
      return fold_node(node, inputs, context);
    }
    return fold_arithmetic(op, inputs);
  } catch (const Error&) {
    return std::nullopt;  // undecidable or out of range for some value: left unfolded
  }
}

namespace {

// A least value that is known and at least `bound` (DimExpr::least_value; a size is its value).
bool provably_at_least(int64_t dim, int64_t bound) {
  if (!ir::is_symbolic(dim)) return dim >= bound;
  auto least = ir::to_expr(dim).least_value();
  return least && *least >= bound;
}

// One sliced axis: [start, end) of a dim, by step 1, for every size; records the assumption that
// a symbolic end fits a table of fixed size.
std::optional<int64_t> sliced_dim(int64_t size, int64_t start, int64_t end,
                                  const std::string& where) {
  if (!provably_at_least(start, 0)) return std::nullopt;
  if (!ir::is_symbolic(end)) {
    if (end >= ir::kMaxElements) {
      end = size;
    } else if (end < 0) {
      if (!provably_at_least(size, -end)) return std::nullopt;
      end = ir::dim_sum(size, end);
    } else if (!ir::is_symbolic(size)) {
      end = std::min(end, size);
    } else if (!provably_at_least(size, end)) {
      return std::nullopt;
    }
  } else if (end != size) {
    if (ir::is_symbolic(size)) return std::nullopt;
    ir::assume_at_most(end, size, where);
  }
  if (!ir::is_symbolic(start) && !ir::is_symbolic(end) && start >= end) return std::nullopt;
  int64_t length = ir::dim_difference(end, start);
  if (!provably_at_least(length, 1)) return std::nullopt;
  return length;
}

const HostTensor* int_input(const Inputs& inputs, size_t k) {
  return k < inputs.size() && inputs[k] != nullptr && !inputs[k]->is_real() ? inputs[k] : nullptr;
}

}  // namespace

std::optional<ir::Dims> symbolic_output_dims(const NodeProto& node, const Inputs& inputs,
                                             const std::vector<std::optional<ir::Dims>>& dims) {
  if (!is_default_domain(node.domain())) return std::nullopt;
  const std::string& op = node.op_type();
  auto dims_of = [&](size_t k) -> const std::optional<ir::Dims>& {
    static const std::optional<ir::Dims> none;
    return k < dims.size() ? dims[k] : none;
  };
  try {
    if (op == "ConstantOfShape") {
      const HostTensor* shape = int_input(inputs, 0);
      if (shape == nullptr) return std::nullopt;
      for (int64_t d : shape->ints) {
        if (!provably_at_least(d, 1)) return std::nullopt;
      }
      return shape->ints;
    }
    if (op == "Range") {
      const HostTensor* start = int_input(inputs, 0);
      const HostTensor* limit = int_input(inputs, 1);
      const HostTensor* delta = int_input(inputs, 2);
      if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
          delta->size() != 1 || delta->ints[0] != 1) {
        return std::nullopt;
      }
      int64_t length = ir::dim_difference(limit->ints[0], start->ints[0]);
      if (!provably_at_least(length, 1)) return std::nullopt;
      return ir::Dims{length};
    }
    if (op == "Flatten") {
      const auto& x = dims_of(0);
      if (!x) return std::nullopt;
      auto rank = static_cast<int64_t>(x->size());
      int64_t axis = attr_int(node, "axis", 1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) return std::nullopt;
      ir::Dims outer(x->begin(), x->begin() + axis);
      ir::Dims inner(x->begin() + axis, x->end());
      return ir::Dims{ir::dim_product(outer), ir::dim_product(inner)};
    }
    if (op == "Concat") {
      const auto& first = dims_of(0);
      if (!first) return std::nullopt;
      auto rank = static_cast<int64_t>(first->size());
      int64_t axis = attr_int(node, "axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return std::nullopt;
      ir::Dims out = *first;
      for (size_t k = 1; k < static_cast<size_t>(node.input_size()); ++k) {
        const auto& next = dims_of(k);
        if (!next || next->size() != first->size()) return std::nullopt;
        for (int64_t a = 0; a < rank; ++a) {
          auto i = static_cast<size_t>(a);
          if (a == axis) {
            out[i] = ir::dim_sum(out[i], (*next)[i]);
          } else if ((*next)[i] != out[i]) {
            return std::nullopt;
          }
        }
      }
      return out;
    }
    if (op == "Slice") {
      const auto& x = dims_of(0);
      const HostTensor* starts = int_input(inputs, 1);
      const HostTensor* ends = int_input(inputs, 2);
      if (!x || !starts || !ends || starts->size() != ends->size()) return std::nullopt;
      auto rank = static_cast<int64_t>(x->size());
      std::vector<int64_t> axes;
      if (const HostTensor* given = int_input(inputs, 3)) {
        axes = given->ints;
      } else if (node.input_size() > 3 && !node.input(3).empty()) {
        return std::nullopt;
      } else {
        for (int64_t a = 0; a < starts->size(); ++a) axes.push_back(a);
      }
      if (node.input_size() > 4 && !node.input(4).empty()) {
        const HostTensor* steps = int_input(inputs, 4);
        if (!steps) return std::nullopt;
        for (int64_t step : steps->ints) {
          if (step != 1) return std::nullopt;
        }
      }
      ir::Dims out = *x;
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
        if (axis < 0 || axis >= rank || ir::is_symbolic(axes[i])) return std::nullopt;
        auto length = sliced_dim((*x)[static_cast<size_t>(axis)], starts->ints[i], ends->ints[i],
                                 describe(node));
        if (!length) return std::nullopt;
        out[static_cast<size_t>(axis)] = *length;
      }
      return out;
    }
    const auto& x = dims_of(0);
    if (!x) return std::nullopt;
    const HostTensor* shape = int_input(inputs, 1);
    if (op == "Reshape" && shape != nullptr) {
      // allowzero matters only for a 0 in the target, which would make an empty tensor.
      bool allow_zero = attr_int(node, "allowzero", 0) != 0;
      if (allow_zero && std::find(shape->ints.begin(), shape->ints.end(), 0) != shape->ints.end()) {
        return std::nullopt;
      }
      ir::Dims out = shape->ints;
      int inferred = -1;
      int64_t known = 1;
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == 0) {
          if (i >= x->size()) return std::nullopt;
          out[i] = (*x)[i];
        }
        if (out[i] == -1) {
          if (inferred >= 0) return std::nullopt;
          inferred = static_cast<int>(i);
          continue;
        }
        if (!provably_at_least(out[i], 1)) return std::nullopt;
        known = ir::dim_product(known, out[i]);
      }
      if (inferred >= 0) {
        auto rest = ir::dim_quotient(ir::dim_product(*x), known);
        if (!rest) return std::nullopt;
        out[static_cast<size_t>(inferred)] = *rest;
      } else if (ir::dim_product(out) != ir::dim_product(*x)) {
        return std::nullopt;
      }
      return out;
    }
    if (op == "Expand" && shape != nullptr) {
      return broadcast_dims(*x, shape->ints);
    }
    static const std::set<std::string> elementwise = {
        "Add",        "Sub",      "Mul", "Div", "Pow", "Where", "Equal",       "Less",
        "Greater",    "And",      "Or",  "Max", "Min", "Mod",   "LessOrEqual", "GreaterOrEqual",
        "BitwiseAnd", "BitwiseOr"};
    if (elementwise.contains(op)) {
      ir::Dims out = *x;
      for (size_t k = 1; k < static_cast<size_t>(node.input_size()); ++k) {
        const auto& next = dims_of(k);
        if (!next) return std::nullopt;
        auto merged = broadcast_dims(out, *next);
        if (!merged) return std::nullopt;
        out = *merged;
      }
      return out;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace saturate::onnx
