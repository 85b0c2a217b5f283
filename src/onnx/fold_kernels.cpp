// Reference semantics of the ONNX operators that exporters use for shape arithmetic, masks and
// index tensors, evaluated once at import on known inputs.
#include "onnx/fold_kernels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <unordered_map>

#include "ir/axes.h"
#include "onnx/node_attributes.h"
#include "support/error.h"

namespace saturate::onnx {
namespace {

using ::onnx::NodeProto;
using ::onnx::TensorProto;
using Inputs = std::vector<const HostTensor*>;
using Tensors = std::vector<HostTensor>;

// Thrown where the folder does not implement a case: the node stays in the graph.
struct NotFoldable {};

[[noreturn]] void reject(const std::string& message) {
  throw Error(message);
}

const HostTensor& need(const Inputs& in, size_t index) {
  if (index >= in.size() || in[index] == nullptr) throw NotFoldable{};
  return *in[index];
}

const HostTensor* optional_input(const Inputs& in, size_t index) {
  return index < in.size() ? in[index] : nullptr;
}

const std::vector<int64_t>& ints_of(const HostTensor& t) {
  if (t.is_real()) throw NotFoldable{};
  return t.ints;
}

int64_t scalar_int(const HostTensor& t) {
  if (t.is_real() || t.size() != 1) throw NotFoldable{};
  return t.ints[0];
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  const std::optional<int64_t> position = ir::normalized_axis(axis, rank);
  if (!position) {
    reject("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return *position;
}

// Numpy broadcasting of several shapes.
ir::Dims broadcast_dims(const std::vector<const ir::Dims*>& shapes) {
  size_t rank = 0;
  for (const auto* s : shapes) rank = std::max(rank, s->size());
  ir::Dims out(rank, 1);
  for (const auto* s : shapes) {
    size_t offset = rank - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = out[offset + i];
      if (d == o || d == 1) continue;
      if (o != 1) {
        reject("shapes " + ir::to_string(*shapes[0]) + " and " + ir::to_string(*s) +
               " do not broadcast");
      }
      o = d;
    }
  }
  return out;
}

// Strides of `in` walked along `out` (0 on broadcast axes).
std::vector<int64_t> broadcast_strides(const ir::Dims& in, const ir::Dims& out) {
  std::vector<int64_t> strides(out.size(), 0);
  std::vector<int64_t> own = ir::row_major_strides(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) strides[offset + i] = in[i] == 1 ? 0 : own[i];
  return strides;
}

// Calls f(output index, input offsets) for every element of `out`.
template <typename F>
void for_each_broadcast(const ir::Dims& out, const std::vector<std::vector<int64_t>>& strides,
                        F f) {
  auto count = checked_element_count(out).value_or(0);
  std::vector<int64_t> counter(out.size(), 0);
  std::vector<int64_t> offsets(strides.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    f(i, offsets);
    for (size_t axis = out.size(); axis-- > 0;) {
      ++counter[axis];
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] += strides[k][axis];
      if (counter[axis] < out[axis]) break;
      for (size_t k = 0; k < strides.size(); ++k) offsets[k] -= strides[k][axis] * out[axis];
      counter[axis] = 0;
    }
  }
}

// Integer arithmetic that wraps instead of overflowing (as every runtime's int64 does).
int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t int_div(int64_t a, int64_t b) {
  if (b == 0) reject("integer division by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;
  return a / b;  // truncation, as ONNX Runtime divides integers
}
int64_t int_mod(int64_t a, int64_t b, bool fmod) {
  if (b == 0) reject("integer modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;  // the divisor's sign, as Python's %
  return r;
}
int64_t int_pow(int64_t base, int64_t exponent) {
  if (exponent < 0) throw NotFoldable{};
  int64_t result = 1;
  for (int64_t k = 0; k < std::min<int64_t>(exponent, 64); ++k) result = wrap_mul(result, base);
  if (exponent > 64 && base != 0 && base != 1 && base != -1) throw NotFoldable{};
  if (exponent > 64 && base == -1) result = exponent % 2 == 0 ? 1 : -1;
  return result;
}

struct BinaryOp {
  std::function<double(double, double)> real;
  std::function<int64_t(int64_t, int64_t)> integer;  // empty: reals only
  bool compares = false;                             // the result is bool
  bool logical = false;                              // bool inputs only
};

const std::unordered_map<std::string, BinaryOp>& binary_ops() {
  static const std::unordered_map<std::string, BinaryOp> ops = {
      {"Add", {[](double a, double b) { return a + b; }, wrap_add}},
      {"Sub", {[](double a, double b) { return a - b; }, wrap_sub}},
      {"Mul", {[](double a, double b) { return a * b; }, wrap_mul}},
      {"Div", {[](double a, double b) { return a / b; }, int_div}},
      {"Pow", {[](double a, double b) { return std::pow(a, b); }, int_pow}},
      {"Equal",
       {[](double a, double b) { return a == b ? 1.0 : 0.0; },
        [](int64_t a, int64_t b) -> int64_t { return a == b; }, true}},
      {"Less",
       {[](double a, double b) { return a < b ? 1.0 : 0.0; },
        [](int64_t a, int64_t b) -> int64_t { return a < b; }, true}},
      {"Greater",
       {[](double a, double b) { return a > b ? 1.0 : 0.0; },
        [](int64_t a, int64_t b) -> int64_t { return a > b; }, true}},
      {"LessOrEqual",
       {[](double a, double b) { return a <= b ? 1.0 : 0.0; },
        [](int64_t a, int64_t b) -> int64_t { return a <= b; }, true}},
      {"GreaterOrEqual",
       {[](double a, double b) { return a >= b ? 1.0 : 0.0; },
        [](int64_t a, int64_t b) -> int64_t { return a >= b; }, true}},
      {"And",
       {nullptr, [](int64_t a, int64_t b) -> int64_t { return a != 0 && b != 0; }, false, true}},
      {"Or",
       {nullptr, [](int64_t a, int64_t b) -> int64_t { return a != 0 || b != 0; }, false, true}},
      {"Xor",
       {nullptr, [](int64_t a, int64_t b) -> int64_t { return (a != 0) != (b != 0); }, false,
        true}},
  };
  return ops;
}

Tensors elementwise(
    const Inputs& in, const FoldContext& context, int32_t out_type,
    const std::function<void(HostTensor&, int64_t, const std::vector<int64_t>&)>& compute) {
  std::vector<const ir::Dims*> shapes;
  for (const auto* t : in) shapes.push_back(&t->dims);
  ir::Dims out_dims = broadcast_dims(shapes);
  HostTensor out = make_host_tensor(out_type, out_dims, context.element_limit);
  std::vector<std::vector<int64_t>> strides;
  for (const auto* t : in) strides.push_back(broadcast_strides(t->dims, out_dims));
  for_each_broadcast(out_dims, strides, [&](int64_t i, const std::vector<int64_t>& offsets) {
    compute(out, i, offsets);
  });
  return {std::move(out)};
}

Tensors fold_binary(const std::string& op, const NodeProto& node, const Inputs& in,
                    const FoldContext& context) {
  const HostTensor& a = need(in, 0);
  const HostTensor& b = need(in, 1);
  if (a.elem_type != b.elem_type && op != "Pow") throw NotFoldable{};
  if (op == "Mod") {
    bool fmod = attr_int(node, "fmod", 0) == 1;
    if (a.is_real() && !fmod) throw NotFoldable{};  // invalid in ONNX
    return elementwise(
        {&a, &b}, context, a.elem_type,
        [&](HostTensor& out, int64_t i, const std::vector<int64_t>& o) {
          if (a.is_real()) {
            out.reals[i] = round_to_type(std::fmod(a.reals[o[0]], b.reals[o[1]]), a.elem_type);
          } else {
            out.ints[i] = wrap_to_type(int_mod(a.ints[o[0]], b.ints[o[1]], fmod), a.elem_type);
          }
        });
  }
  const BinaryOp& spec = binary_ops().at(op);
  if (spec.logical && a.elem_type != TensorProto::BOOL) throw NotFoldable{};
  int32_t out_type = spec.compares || spec.logical ? TensorProto::BOOL : a.elem_type;
  bool real = a.is_real() || b.is_real();
  if (op == "Pow" && a.is_real() != b.is_real()) real = a.is_real();
  if (!real && !spec.integer) throw NotFoldable{};
  if (real && !spec.real) throw NotFoldable{};
  return elementwise(
      {&a, &b}, context, out_type, [&](HostTensor& out, int64_t i, const std::vector<int64_t>& o) {
        if (real) {
          double r = spec.real(a.real(o[0]), b.real(o[1]));
          if (out.is_real()) {
            out.reals[i] = round_to_type(r, out_type);
          } else {
            out.ints[i] = r != 0.0 ? 1 : 0;
          }
        } else {
          out.ints[i] = wrap_to_type(spec.integer(a.ints[o[0]], b.ints[o[1]]), out_type);
        }
      });
}

Tensors fold_min_max(bool is_max, const Inputs& in, const FoldContext& context) {
  if (in.empty()) throw NotFoldable{};
  for (const auto* t : in) {
    if (t == nullptr || t->elem_type != in[0]->elem_type) throw NotFoldable{};
  }
  const int32_t type = in[0]->elem_type;
  return elementwise(in, context, type,
                     [&](HostTensor& out, int64_t i, const std::vector<int64_t>& o) {
                       for (size_t k = 0; k < in.size(); ++k) {
                         if (out.is_real()) {
                           double v = in[k]->reals[o[k]];
                           double& r = out.reals[i];
                           if (k == 0 || std::isnan(v) || (is_max ? v > r : v < r)) r = v;
                         } else {
                           int64_t v = in[k]->ints[o[k]];
                           int64_t& r = out.ints[i];
                           if (k == 0 || (is_max ? v > r : v < r)) r = v;
                         }
                       }
                     });
}

Tensors fold_where(const Inputs& in, const FoldContext& context) {
  const HostTensor& c = need(in, 0);
  const HostTensor& x = need(in, 1);
  const HostTensor& y = need(in, 2);
  if (c.elem_type != TensorProto::BOOL || x.elem_type != y.elem_type) throw NotFoldable{};
  return elementwise({&c, &x, &y}, context, x.elem_type,
                     [&](HostTensor& out, int64_t i, const std::vector<int64_t>& o) {
                       bool pick = c.ints[o[0]] != 0;
                       if (out.is_real()) {
                         out.reals[i] = pick ? x.reals[o[1]] : y.reals[o[2]];
                       } else {
                         out.ints[i] = pick ? x.ints[o[1]] : y.ints[o[2]];
                       }
                     });
}

std::optional<double> real_unary(const std::string& op, double x) {
  if (op == "Reciprocal") return 1.0 / x;
  if (op == "Sqrt") return std::sqrt(x);
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Sin") return std::sin(x);
  if (op == "Cos") return std::cos(x);
  if (op == "Tan") return std::tan(x);
  if (op == "Tanh") return std::tanh(x);
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (op == "Erf") return std::erf(x);
  if (op == "Floor") return std::floor(x);
  if (op == "Ceil") return std::ceil(x);
  if (op == "Round") return std::nearbyint(x);  // half to even, the default rounding mode
  if (op == "Neg") return -x;
  if (op == "Abs") return std::fabs(x);
  if (op == "Relu") return std::max(x, 0.0);
  if (op == "Sign") return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
  return std::nullopt;
}

std::optional<int64_t> int_unary(const std::string& op, int64_t x) {
  if (op == "Neg") return wrap_sub(0, x);
  if (op == "Abs") return x < 0 ? wrap_sub(0, x) : x;
  if (op == "Relu") return std::max<int64_t>(x, 0);
  if (op == "Sign") return x > 0 ? 1 : (x < 0 ? -1 : 0);
  if (op == "Identity") return x;
  return std::nullopt;
}

const std::set<std::string>& unary_ops() {
  static const std::set<std::string> ops = {
      "Reciprocal", "Sqrt",  "Exp",  "Log",   "Sin", "Cos", "Tan",  "Tanh", "Sigmoid",
      "Erf",        "Floor", "Ceil", "Round", "Neg", "Abs", "Relu", "Sign"};
  return ops;
}

Tensors fold_unary(const std::string& op, const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  HostTensor out = make_host_tensor(x.elem_type, x.dims, context.element_limit);
  if (x.is_real()) {
    for (int64_t i = 0; i < x.size(); ++i) {
      out.reals[i] = round_to_type(*real_unary(op, x.reals[i]), x.elem_type);
    }
  } else {
    if (x.elem_type == TensorProto::BOOL || !int_unary(op, 0)) throw NotFoldable{};
    for (int64_t i = 0; i < x.size(); ++i) {
      out.ints[i] = wrap_to_type(*int_unary(op, x.ints[i]), x.elem_type);
    }
  }
  return {std::move(out)};
}

Tensors fold_predicate(const std::string& op, const NodeProto& node, const Inputs& in,
                       const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  HostTensor out = make_host_tensor(TensorProto::BOOL, x.dims, context.element_limit);
  if (op == "Not") {
    if (x.elem_type != TensorProto::BOOL) throw NotFoldable{};
    for (int64_t i = 0; i < x.size(); ++i) out.ints[i] = x.ints[i] == 0 ? 1 : 0;
    return {std::move(out)};
  }
  if (!x.is_real()) throw NotFoldable{};
  bool positive = attr_int(node, "detect_positive", 1) == 1;
  bool negative = attr_int(node, "detect_negative", 1) == 1;
  for (int64_t i = 0; i < x.size(); ++i) {
    double v = x.reals[i];
    out.ints[i] = op == "IsNaN" ? std::isnan(v)
                                : std::isinf(v) && ((v > 0 && positive) || (v < 0 && negative));
  }
  return {std::move(out)};
}

HostTensor cast(const HostTensor& x, int32_t to, const FoldContext& context) {
  if (!foldable_type(to)) throw NotFoldable{};
  HostTensor out = make_host_tensor(to, x.dims, context.element_limit);
  for (int64_t i = 0; i < x.size(); ++i) {
    if (out.is_real()) {
      out.reals[i] = round_to_type(x.real(i), to);
    } else if (to == TensorProto::BOOL) {
      out.ints[i] = x.real(i) != 0.0 ? 1 : 0;
    } else if (x.is_real()) {
      double v = std::trunc(x.reals[i]);
      // Out-of-range float-to-int casts are undefined in ONNX: leave them to the runtime.
      if (!std::isfinite(v) || v < -9.2e18 || v > 9.2e18) throw NotFoldable{};
      out.ints[i] = wrap_to_type(static_cast<int64_t>(v), to);
    } else {
      out.ints[i] = wrap_to_type(x.ints[i], to);
    }
  }
  return out;
}

Tensors fold_constant_of_shape(const NodeProto& node, const Inputs& in,
                               const FoldContext& context) {
  ir::Dims dims = ints_of(need(in, 0));
  HostTensor fill;
  fill.elem_type = TensorProto::FLOAT;
  fill.reals = {0.0};
  if (const auto* value = find_attr(node, "value")) {
    fill = read_host_tensor(value->t(), "the value attribute");
    if (fill.size() != 1) reject("the value attribute must hold one element");
  }
  for (int64_t d : dims) {
    if (d < 0) reject("negative dimension in shape " + ir::to_string(dims));
  }
  HostTensor out = make_host_tensor(fill.elem_type, dims, context.element_limit);
  if (out.is_real()) {
    std::fill(out.reals.begin(), out.reals.end(), fill.reals[0]);
  } else {
    std::fill(out.ints.begin(), out.ints.end(), fill.ints[0]);
  }
  return {std::move(out)};
}

Tensors fold_range(const Inputs& in, const FoldContext& context) {
  const HostTensor& start = need(in, 0);
  const HostTensor& limit = need(in, 1);
  const HostTensor& delta = need(in, 2);
  if (start.size() != 1 || limit.size() != 1 || delta.size() != 1 ||
      start.elem_type != limit.elem_type || start.elem_type != delta.elem_type) {
    throw NotFoldable{};
  }
  if (start.is_real()) {
    double s = start.reals[0];
    double d = delta.reals[0];
    if (d == 0.0) reject("Range with delta 0");
    double steps = std::ceil((limit.reals[0] - s) / d);
    if (!std::isfinite(steps)) reject("Range with a non-finite length");
    int64_t count = steps > static_cast<double>(context.element_limit)
                        ? context.element_limit + 1
                        : static_cast<int64_t>(std::max(steps, 0.0));
    HostTensor out = make_host_tensor(start.elem_type, {count}, context.element_limit);
    for (int64_t i = 0; i < count; ++i) {
      out.reals[i] = round_to_type(s + static_cast<double>(i) * d, start.elem_type);
    }
    return {std::move(out)};
  }
  int64_t s = start.ints[0];
  int64_t l = limit.ints[0];
  int64_t d = delta.ints[0];
  if (d == 0) reject("Range with delta 0");
  // The length in unsigned arithmetic: start -2^63 to limit 2^63 - 1 does not overflow.
  uint64_t count64 = 0;
  if (d > 0 && l > s) {
    count64 =
        (static_cast<uint64_t>(l) - static_cast<uint64_t>(s) - 1) / static_cast<uint64_t>(d) + 1;
  } else if (d < 0 && l < s) {
    uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(d);
    count64 = (static_cast<uint64_t>(s) - static_cast<uint64_t>(l) - 1) / magnitude + 1;
  }
  int64_t count = count64 > static_cast<uint64_t>(context.element_limit)
                      ? context.element_limit + 1
                      : static_cast<int64_t>(count64);
  HostTensor out = make_host_tensor(start.elem_type, {count}, context.element_limit);
  for (int64_t i = 0; i < count; ++i) {
    out.ints[i] = wrap_to_type(wrap_add(s, wrap_mul(i, d)), start.elem_type);
  }
  return {std::move(out)};
}

// A tensor with new dims and the same elements.
HostTensor with_dims(const HostTensor& x, ir::Dims dims) {
  HostTensor out = x;
  out.dims = std::move(dims);
  return out;
}

Tensors fold_reshape(const NodeProto& node, const Inputs& in) {
  const HostTensor& x = need(in, 0);
  ir::Dims shape = ints_of(need(in, 1));
  bool allow_zero = attr_int(node, "allowzero", 0) == 1;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= x.dims.size())
        reject("Reshape copies dimension " + std::to_string(i) + " that the input lacks");
      shape[i] = x.dims[i];
    }
    if (shape[i] == -1) {
      if (inferred >= 0) reject("Reshape to " + ir::to_string(shape) + " has two -1 dimensions");
      inferred = static_cast<int>(i);
    } else if (shape[i] < 0) {
      reject("Reshape to a negative dimension " + ir::to_string(shape));
    } else {
      if (known > 0 && shape[i] > std::numeric_limits<int64_t>::max() / known) {
        reject("Reshape to " + ir::to_string(shape) + " overflows the element count");
      }
      known *= shape[i];
    }
  }
  if (inferred >= 0) {
    if (known == 0 || x.size() % known != 0) reject("Reshape cannot infer the -1 dimension");
    shape[static_cast<size_t>(inferred)] = x.size() / known;
  }
  if (checked_element_count(shape) != x.size()) {
    reject("Reshape of " + ir::to_string(x.dims) + " to " + ir::to_string(shape) +
           " changes the element count");
  }
  return {with_dims(x, shape)};
}

std::optional<std::vector<int64_t>> axes_of(const NodeProto& node, const Inputs& in,
                                            size_t input_index, int64_t first_input_opset,
                                            const FoldContext& context) {
  if (context.opset >= first_input_opset) {
    const HostTensor* axes = optional_input(in, input_index);
    if (axes == nullptr) {
      if (input_index < static_cast<size_t>(node.input_size()) &&
          !node.input(static_cast<int>(input_index)).empty()) {
        throw NotFoldable{};  // given but unknown
      }
      return std::nullopt;
    }
    return ints_of(*axes);
  }
  return attr_ints(node, "axes");
}

Tensors fold_squeeze(const NodeProto& node, const Inputs& in, const FoldContext& context,
                     bool unsqueeze) {
  const HostTensor& x = need(in, 0);
  auto axes = axes_of(node, in, 1, 13, context);
  auto rank = static_cast<int64_t>(x.dims.size());
  ir::Dims dims;
  if (unsqueeze) {
    if (!axes) throw NotFoldable{};
    int64_t out_rank = rank + static_cast<int64_t>(axes->size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : *axes) {
      auto axis = static_cast<size_t>(normalize_axis(a, out_rank));
      if (inserted[axis]) reject("Unsqueeze repeats axis " + std::to_string(a));
      inserted[axis] = true;
    }
    size_t next = 0;
    for (size_t a = 0; a < inserted.size(); ++a) dims.push_back(inserted[a] ? 1 : x.dims[next++]);
  } else {
    std::vector<bool> drop(x.dims.size(), false);
    if (!axes) {
      for (size_t a = 0; a < x.dims.size(); ++a) drop[a] = x.dims[a] == 1;
    } else {
      for (int64_t a : *axes) {
        auto axis = static_cast<size_t>(normalize_axis(a, rank));
        if (x.dims[axis] != 1)
          reject("Squeeze of axis " + std::to_string(a) + " of size " +
                 std::to_string(x.dims[axis]));
        drop[axis] = true;
      }
    }
    for (size_t a = 0; a < x.dims.size(); ++a) {
      if (!drop[a]) dims.push_back(x.dims[a]);
    }
  }
  return {with_dims(x, dims)};
}

Tensors fold_flatten(const NodeProto& node, const Inputs& in) {
  const HostTensor& x = need(in, 0);
  auto rank = static_cast<int64_t>(x.dims.size());
  int64_t axis = attr_int(node, "axis", 1);
  if (axis < -rank || axis > rank) reject("Flatten axis out of range");
  if (axis < 0) axis += rank;
  int64_t outer = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.dims[static_cast<size_t>(a)];
  return {with_dims(x, {outer, outer == 0 ? 0 : x.size() / outer})};
}

// Copies `count` elements from x at `from` to out at `to`.
void copy_elements(const HostTensor& x, int64_t from, HostTensor& out, int64_t to, int64_t count) {
  if (x.is_real()) {
    std::copy_n(x.reals.begin() + from, count, out.reals.begin() + to);
  } else {
    std::copy_n(x.ints.begin() + from, count, out.ints.begin() + to);
  }
}

Tensors fold_concat(const NodeProto& node, const Inputs& in, const FoldContext& context) {
  if (in.empty()) throw NotFoldable{};
  for (const auto* t : in) {
    if (t == nullptr || t->elem_type != in[0]->elem_type || t->dims.size() != in[0]->dims.size()) {
      throw NotFoldable{};
    }
  }
  auto rank = static_cast<int64_t>(in[0]->dims.size());
  auto axis = static_cast<size_t>(normalize_axis(attr_int(node, "axis", 0), rank));
  ir::Dims dims = in[0]->dims;
  dims[axis] = 0;
  for (const auto* t : in) {
    for (size_t a = 0; a < dims.size(); ++a) {
      if (a != axis && t->dims[a] != dims[a]) reject("Concat inputs differ off the axis");
    }
    dims[axis] += t->dims[axis];
  }
  HostTensor out = make_host_tensor(in[0]->elem_type, dims, context.element_limit);
  int64_t outer = 1;
  for (size_t a = 0; a < axis; ++a) outer *= dims[a];
  int64_t inner = 1;
  for (size_t a = axis + 1; a < dims.size(); ++a) inner *= dims[a];
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto* t : in) {
      int64_t chunk = t->dims[axis] * inner;
      copy_elements(*t, o * chunk, out, at, chunk);
      at += chunk;
    }
  }
  return {std::move(out)};
}

Tensors fold_gather(const NodeProto& node, const Inputs& in, const FoldContext& context) {
  const HostTensor& data = need(in, 0);
  const HostTensor& indices = need(in, 1);
  const auto& idx = ints_of(indices);
  auto rank = static_cast<int64_t>(data.dims.size());
  if (rank == 0) reject("Gather of a scalar");
  auto axis = static_cast<size_t>(normalize_axis(attr_int(node, "axis", 0), rank));
  ir::Dims dims(data.dims.begin(), data.dims.begin() + static_cast<int64_t>(axis));
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + static_cast<int64_t>(axis) + 1, data.dims.end());
  HostTensor out = make_host_tensor(data.elem_type, dims, context.element_limit);
  int64_t outer = 1;
  for (size_t a = 0; a < axis; ++a) outer *= data.dims[a];
  int64_t inner = 1;
  for (size_t a = axis + 1; a < data.dims.size(); ++a) inner *= data.dims[a];
  int64_t size = data.dims[axis];
  int64_t at = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : idx) {
      if (k < -size || k >= size) {
        reject("Gather index " + std::to_string(k) + " is out of range for axis " +
               std::to_string(axis) + " of size " + std::to_string(size));
      }
      if (k < 0) k += size;
      copy_elements(data, (o * size + k) * inner, out, at, inner);
      at += inner;
    }
  }
  return {std::move(out)};
}

Tensors fold_slice(const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  const auto& starts = ints_of(need(in, 1));
  const auto& ends = ints_of(need(in, 2));
  auto rank = static_cast<int64_t>(x.dims.size());
  std::vector<int64_t> axes;
  if (const auto* a = optional_input(in, 3)) {
    axes = ints_of(*a);
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (const auto* s = optional_input(in, 4)) steps = ints_of(*s);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    reject("Slice's starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> begin(x.dims.size(), 0);
  std::vector<int64_t> step(x.dims.size(), 1);
  ir::Dims dims = x.dims;
  std::vector<bool> seen(x.dims.size(), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    auto axis = static_cast<size_t>(normalize_axis(axes[k], rank));
    if (seen[axis]) reject("Slice repeats axis " + std::to_string(axes[k]));
    seen[axis] = true;
    int64_t size = x.dims[axis];
    int64_t st = steps[k];
    if (st == 0) reject("Slice step 0");
    int64_t s = starts[k];
    int64_t e = ends[k];
    int64_t count = 0;
    if (st > 0) {
      s = forward_slice_bound(s, size);
      e = forward_slice_bound(e, size);
      count = e > s ? 1 + (e - s - 1) / st : 0;
    } else {
      if (s < 0) s = s < -size ? -size - 1 : s;  // keep the addition in range
      if (e < 0) e = e < -size ? -size - 1 : e;
      if (s < 0) s += size;
      if (e < 0) e += size;
      s = std::clamp<int64_t>(s, 0, size - 1);
      e = std::clamp<int64_t>(e, -1, size - 1);
      count = s > e ? (st < -std::numeric_limits<int64_t>::max() ? 1 : 1 + (s - e - 1) / -st) : 0;
    }
    begin[axis] = s;
    step[axis] = st;
    dims[axis] = count;
  }
  HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
  std::vector<int64_t> in_strides = ir::row_major_strides(x.dims);
  int64_t base = 0;
  std::vector<int64_t> strides(dims.size());
  for (size_t a = 0; a < dims.size(); ++a) {
    base += begin[a] * in_strides[a];
    strides[a] = step[a] * in_strides[a];
  }
  for_each_broadcast(dims, {strides}, [&](int64_t i, const std::vector<int64_t>& o) {
    copy_elements(x, base + o[0], out, i, 1);
  });
  return {std::move(out)};
}

Tensors fold_transpose(const NodeProto& node, const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  size_t rank = x.dims.size();
  std::vector<int64_t> perm;
  for (size_t a = rank; a-- > 0;) perm.push_back(static_cast<int64_t>(a));
  perm = attr_ints(node, "perm").value_or(perm);
  if (perm.size() != rank) reject("Transpose perm has the wrong length");
  std::vector<bool> seen(rank, false);
  ir::Dims dims;
  std::vector<int64_t> in_strides = ir::row_major_strides(x.dims);
  std::vector<int64_t> strides;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) {
      reject("Transpose perm is not a permutation");
    }
    seen[static_cast<size_t>(p)] = true;
    dims.push_back(x.dims[static_cast<size_t>(p)]);
    strides.push_back(in_strides[static_cast<size_t>(p)]);
  }
  HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
  for_each_broadcast(dims, {strides}, [&](int64_t i, const std::vector<int64_t>& o) {
    copy_elements(x, o[0], out, i, 1);
  });
  return {std::move(out)};
}

Tensors fold_expand(const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  ir::Dims shape = ints_of(need(in, 1));
  ir::Dims dims = broadcast_dims({&x.dims, &shape});
  HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
  for_each_broadcast(
      dims, {broadcast_strides(x.dims, dims)},
      [&](int64_t i, const std::vector<int64_t>& o) { copy_elements(x, o[0], out, i, 1); });
  return {std::move(out)};
}

Tensors fold_tile(const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  const auto& repeats = ints_of(need(in, 1));
  if (repeats.size() != x.dims.size()) reject("Tile repeats have the wrong length");
  ir::Dims dims;
  for (size_t a = 0; a < x.dims.size(); ++a) {
    if (repeats[a] < 0) reject("Tile with a negative repeat");
    if (repeats[a] != 0 && x.dims[a] > std::numeric_limits<int64_t>::max() / repeats[a]) {
      reject("Tile's result is too large");
    }
    dims.push_back(x.dims[a] * repeats[a]);
  }
  HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
  std::vector<int64_t> in_strides = ir::row_major_strides(x.dims);
  std::vector<int64_t> counter(dims.size(), 0);
  for (int64_t i = 0; i < out.size(); ++i) {
    int64_t from = 0;
    for (size_t a = 0; a < dims.size(); ++a) from += (counter[a] % x.dims[a]) * in_strides[a];
    copy_elements(x, from, out, i, 1);
    for (size_t a = dims.size(); a-- > 0;) {
      if (++counter[a] < dims[a]) break;
      counter[a] = 0;
    }
  }
  return {std::move(out)};
}

Tensors fold_reduce(const std::string& op, const NodeProto& node, const Inputs& in,
                    const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  auto axes = axes_of(node, in, 1, op == "ReduceSum" ? 13 : 18, context);
  auto rank = static_cast<int64_t>(x.dims.size());
  bool keep = attr_int(node, "keepdims", 1) == 1;
  if (!axes || axes->empty()) {
    if (attr_int(node, "noop_with_empty_axes", 0) == 1) return {x};
    axes = std::vector<int64_t>{};
    for (int64_t a = 0; a < rank; ++a) axes->push_back(a);
  }
  std::vector<bool> reduced(x.dims.size(), false);
  for (int64_t a : *axes) reduced[static_cast<size_t>(normalize_axis(a, rank))] = true;
  ir::Dims dims;
  ir::Dims kept = x.dims;
  for (size_t a = 0; a < x.dims.size(); ++a) {
    if (reduced[a]) {
      kept[a] = 1;
      if (keep) dims.push_back(1);
    } else {
      dims.push_back(x.dims[a]);
    }
  }
  if ((op == "ReduceMax" || op == "ReduceMin") && x.size() == 0) throw NotFoldable{};
  HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
  std::vector<double> acc(static_cast<size_t>(out.size()), op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<int64_t> iacc(static_cast<size_t>(out.size()), op == "ReduceProd" ? 1 : 0);
  std::vector<bool> started(static_cast<size_t>(out.size()), false);
  std::vector<int64_t> strides = broadcast_strides(kept, x.dims);
  for_each_broadcast(x.dims, {strides}, [&](int64_t i, const std::vector<int64_t>& o) {
    auto k = static_cast<size_t>(o[0]);
    if (x.is_real()) {
      double v = x.reals[static_cast<size_t>(i)];
      if (op == "ReduceMax") {
        acc[k] = !started[k] || v > acc[k] ? v : acc[k];
      } else if (op == "ReduceMin") {
        acc[k] = !started[k] || v < acc[k] ? v : acc[k];
      } else if (op == "ReduceProd") {
        acc[k] *= v;
      } else {
        acc[k] += v;
      }
    } else {
      int64_t v = x.ints[static_cast<size_t>(i)];
      if (op == "ReduceMax") {
        iacc[k] = !started[k] || v > iacc[k] ? v : iacc[k];
      } else if (op == "ReduceMin") {
        iacc[k] = !started[k] || v < iacc[k] ? v : iacc[k];
      } else if (op == "ReduceProd") {
        iacc[k] = wrap_mul(iacc[k], v);
      } else {
        iacc[k] = wrap_add(iacc[k], v);
      }
    }
    started[k] = true;
  });
  int64_t count = out.size() == 0 ? 0 : x.size() / out.size();
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.is_real()) {
      double v = acc[static_cast<size_t>(k)];
      if (op == "ReduceMean") v /= static_cast<double>(count);
      out.reals[k] = round_to_type(v, out.elem_type);
    } else {
      int64_t v = iacc[static_cast<size_t>(k)];
      if (op == "ReduceMean") v = count == 0 ? 0 : v / count;
      out.ints[k] = wrap_to_type(v, out.elem_type);
    }
  }
  return {std::move(out)};
}

Tensors fold_trilu(const NodeProto& node, const Inputs& in) {
  const HostTensor& x = need(in, 0);
  if (x.dims.size() < 2) reject("Trilu needs rank 2 or more");
  int64_t k = 0;
  if (const auto* kt = optional_input(in, 1)) k = scalar_int(*kt);
  bool upper = attr_int(node, "upper", 1) == 1;
  int64_t rows = x.dims[x.dims.size() - 2];
  int64_t cols = x.dims.back();
  HostTensor out = x;
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t c = i % cols;
    int64_t r = (i / cols) % rows;
    // Keep j - i >= k (upper) or j - i <= k (lower).
    int64_t diagonal = c - r;
    bool keep = upper ? diagonal >= k : diagonal <= k;
    if (!keep) {
      if (out.is_real()) {
        out.reals[i] = 0.0;
      } else {
        out.ints[i] = 0;
      }
    }
  }
  return {std::move(out)};
}

Tensors fold_scatter_nd(const NodeProto& node, const Inputs& in) {
  const HostTensor& data = need(in, 0);
  const HostTensor& indices = need(in, 1);
  const HostTensor& updates = need(in, 2);
  if (attr_string(node, "reduction", "none") != "none" || updates.elem_type != data.elem_type) {
    throw NotFoldable{};
  }
  const auto& idx = ints_of(indices);
  if (indices.dims.empty()) reject("ScatterND indices must have rank 1 or more");
  auto depth = static_cast<size_t>(indices.dims.back());
  if (depth == 0 || depth > data.dims.size()) reject("ScatterND index depth out of range");
  int64_t inner = 1;
  for (size_t a = depth; a < data.dims.size(); ++a) inner *= data.dims[a];
  std::vector<int64_t> strides = ir::row_major_strides(data.dims);
  int64_t rows = static_cast<int64_t>(idx.size() / depth);
  if (updates.size() != rows * inner) reject("ScatterND updates have the wrong size");
  HostTensor out = data;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t at = 0;
    for (size_t a = 0; a < depth; ++a) {
      int64_t k = idx[static_cast<size_t>(r) * depth + a];
      int64_t size = data.dims[a];
      if (k < -size || k >= size) {
        reject("ScatterND index " + std::to_string(k) + " is out of range for size " +
               std::to_string(size));
      }
      at += (k < 0 ? k + size : k) * strides[a];
    }
    copy_elements(updates, r * inner, out, at, inner);
  }
  return {std::move(out)};
}

Tensors fold_split(const NodeProto& node, const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  auto rank = static_cast<int64_t>(x.dims.size());
  auto axis = static_cast<size_t>(normalize_axis(attr_int(node, "axis", 0), rank));
  int64_t parts = node.output_size();
  if (parts < 1) throw NotFoldable{};
  std::vector<int64_t> sizes;
  if (context.opset >= 13) {
    if (const auto* s = optional_input(in, 1))
      sizes = ints_of(*s);
    else if (node.input_size() > 1 && !node.input(1).empty())
      throw NotFoldable{};
  } else {
    sizes = attr_ints(node, "split").value_or(std::vector<int64_t>{});
  }
  int64_t size = x.dims[axis];
  if (sizes.empty()) {
    int64_t chunk = (size + parts - 1) / parts;
    for (int64_t k = 0; k < parts; ++k)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, size - k * chunk)));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) reject("Split with a negative size");
    total += s;
  }
  if (static_cast<int64_t>(sizes.size()) != parts || total != size) {
    reject("Split sizes do not add up to the axis");
  }
  int64_t outer = 1;
  for (size_t a = 0; a < axis; ++a) outer *= x.dims[a];
  int64_t inner = 1;
  for (size_t a = axis + 1; a < x.dims.size(); ++a) inner *= x.dims[a];
  Tensors outs;
  int64_t offset = 0;
  for (int64_t s : sizes) {
    ir::Dims dims = x.dims;
    dims[axis] = s;
    HostTensor out = make_host_tensor(x.elem_type, dims, context.element_limit);
    for (int64_t o = 0; o < outer; ++o) {
      copy_elements(x, (o * size + offset) * inner, out, o * s * inner, s * inner);
    }
    offset += s;
    outs.push_back(std::move(out));
  }
  return outs;
}

Tensors fold_cumsum(const NodeProto& node, const Inputs& in) {
  const HostTensor& x = need(in, 0);
  auto rank = static_cast<int64_t>(x.dims.size());
  auto axis = static_cast<size_t>(normalize_axis(scalar_int(need(in, 1)), rank));
  bool exclusive = attr_int(node, "exclusive", 0) == 1;
  bool reverse = attr_int(node, "reverse", 0) == 1;
  int64_t outer = 1;
  for (size_t a = 0; a < axis; ++a) outer *= x.dims[a];
  int64_t inner = 1;
  for (size_t a = axis + 1; a < x.dims.size(); ++a) inner *= x.dims[a];
  int64_t size = x.dims[axis];
  HostTensor out = x;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double racc = 0;
      int64_t iacc = 0;
      for (int64_t step = 0; step < size; ++step) {
        int64_t k = reverse ? size - 1 - step : step;
        int64_t at = (o * size + k) * inner + i;
        if (x.is_real()) {
          double v = x.reals[at];
          if (!exclusive) racc += v;
          out.reals[at] = round_to_type(racc, x.elem_type);
          if (exclusive) racc += v;
        } else {
          int64_t v = x.ints[at];
          if (!exclusive) iacc = wrap_add(iacc, v);
          out.ints[at] = wrap_to_type(iacc, x.elem_type);
          if (exclusive) iacc = wrap_add(iacc, v);
        }
      }
    }
  }
  return {std::move(out)};
}

Tensors fold_nonzero(const Inputs& in, const FoldContext& context) {
  const HostTensor& x = need(in, 0);
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.size(); ++i) {
    if (x.real(i) != 0.0) hits.push_back(i);
  }
  auto rank = static_cast<int64_t>(x.dims.size());
  auto count = static_cast<int64_t>(hits.size());
  HostTensor out = make_host_tensor(TensorProto::INT64, {rank, count}, context.element_limit);
  std::vector<int64_t> strides = ir::row_major_strides(x.dims);
  for (int64_t h = 0; h < count; ++h) {
    int64_t rest = hits[static_cast<size_t>(h)];
    for (int64_t a = 0; a < rank; ++a) {
      out.ints[static_cast<size_t>(a * count + h)] = rest / strides[static_cast<size_t>(a)];
      rest %= strides[static_cast<size_t>(a)];
    }
  }
  return {std::move(out)};
}

const std::set<std::string>& other_ops() {
  static const std::set<std::string> ops = {
      "Identity",  "Mod",       "Min",        "Max",      "Where",           "Not",
      "IsNaN",     "IsInf",     "Cast",       "CastLike", "ConstantOfShape", "Range",
      "Reshape",   "Squeeze",   "Unsqueeze",  "Flatten",  "Concat",          "Gather",
      "Slice",     "Transpose", "Expand",     "Tile",     "ReduceSum",       "ReduceMean",
      "ReduceMax", "ReduceMin", "ReduceProd", "Trilu",    "ScatterND",       "Split",
      "CumSum",    "NonZero"};
  return ops;
}

}  // namespace

bool is_foldable_op(const std::string& op_type) {
  return binary_ops().contains(op_type) || unary_ops().contains(op_type) ||
         other_ops().contains(op_type);
}

int64_t forward_slice_bound(int64_t bound, int64_t size) {
  if (bound < 0) bound = bound < -size ? 0 : bound + size;
  return std::min(bound, size);
}

std::optional<std::vector<HostTensor>> fold_node(const NodeProto& node, const Inputs& in,
                                                 const FoldContext& context) {
  const std::string& op = node.op_type();
  if (!is_default_domain(node.domain()) || !is_foldable_op(op)) return std::nullopt;
  try {
    if (binary_ops().contains(op)) return fold_binary(op, node, in, context);
    if (unary_ops().contains(op)) return fold_unary(op, in, context);
    if (op == "Identity") return Tensors{need(in, 0)};
    if (op == "Mod") return fold_binary(op, node, in, context);
    if (op == "Min" || op == "Max") return fold_min_max(op == "Max", in, context);
    if (op == "Where") return fold_where(in, context);
    if (op == "Not" || op == "IsNaN" || op == "IsInf") {
      return fold_predicate(op, node, in, context);
    }
    if (op == "Cast") {
      return Tensors{cast(need(in, 0), static_cast<int32_t>(attr_int(node, "to", 0)), context)};
    }
    if (op == "CastLike") return Tensors{cast(need(in, 0), need(in, 1).elem_type, context)};
    if (op == "ConstantOfShape") return fold_constant_of_shape(node, in, context);
    if (op == "Range") return fold_range(in, context);
    if (op == "Reshape") return fold_reshape(node, in);
    if (op == "Squeeze" || op == "Unsqueeze") {
      return fold_squeeze(node, in, context, op == "Unsqueeze");
    }
    if (op == "Flatten") return fold_flatten(node, in);
    if (op == "Concat") return fold_concat(node, in, context);
    if (op == "Gather") return fold_gather(node, in, context);
    if (op == "Slice") return fold_slice(in, context);
    if (op == "Transpose") return fold_transpose(node, in, context);
    if (op == "Expand") return fold_expand(in, context);
    if (op == "Tile") return fold_tile(in, context);
    if (op.rfind("Reduce", 0) == 0) return fold_reduce(op, node, in, context);
    if (op == "Trilu") return fold_trilu(node, in);
    if (op == "ScatterND") return fold_scatter_nd(node, in);
    if (op == "Split") return fold_split(node, in, context);
    if (op == "CumSum") return fold_cumsum(node, in);
    if (op == "NonZero") return fold_nonzero(in, context);
  } catch (const NotFoldable&) {
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace saturate::onnx
