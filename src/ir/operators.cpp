// The operator set: signatures, shape inference and descriptions (the TASO shape rules).
//
// Dimensions may be symbolic (ir/symbolic_dim.h). Every shape condition is decided on the
// normal form, for every value of the symbols: equal dims by ==, divisibility by dim_quotient,
// sums and products by dim_sum and dim_product. A condition that cannot be proved (two different
// symbols broadcast together, a window sliding over a symbolic size it may not fit) is a shape
// error, as a mismatch is: the importer then keeps the node opaque and a rule does not fire.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "ir/axes.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::ir {
namespace {

using Types = std::vector<TensorType>;

[[noreturn]] void shape_error(const std::string& message) {
  throw Error(message);
}

// Slice's "to the end" bound on a symbolic axis (ONNX's INT64_MAX).
constexpr int64_t kSliceToEnd = std::numeric_limits<int64_t>::max();

int normalize_axis(int64_t axis, int rank) {
  const std::optional<int64_t> position = normalized_axis(axis, rank);
  if (!position) {
    shape_error("axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  return static_cast<int>(*position);
}

void require_same_dtype(const Types& inputs) {
  for (const auto& t : inputs) {
    if (t.dtype != inputs[0].dtype) {
      shape_error("element types differ: " + to_string(inputs[0]) + " and " + to_string(t));
    }
  }
}

void require_rank(const TensorType& t, int rank, std::string_view what) {
  if (t.rank() != rank) {
    shape_error(std::string(what) + " must have rank " + std::to_string(rank) + ", got " +
                to_string(t));
  }
}

// Numpy broadcasting of two shapes. Equal dims pass and 1 stretches to anything; two different
// symbolic dims, or a symbolic dim and a size other than 1, are refused: they broadcast only
// at the values where one of them is 1, which no rule may assume (exporters' graphs broadcast a
// symbolic dim only against itself or 1).
Dims broadcast(const Dims& a, const Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      shape_error("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void require_sane_size(const Dims& dims) {
  if (auto problem = shape_problem(dims)) shape_error(*problem);
}

// A window attribute (kernel, stride) or a pad past kMaxElements cannot describe a tensor any
// machine holds; refusing it keeps the arithmetic on it from overflowing.
void require_size_attribute(std::string_view what, int64_t value, int64_t minimum) {
  if (value < minimum) {
    shape_error(std::string(what) + " must be " + (minimum > 0 ? "positive" : "non-negative") +
                ", got " + std::to_string(value));
  }
  if (value > kMaxElements) {
    shape_error(std::string(what) + " must be at most 2^40, got " + std::to_string(value));
  }
}

// An input's shape may hold symbolic dims (a batch, a sequence length); a weight's and a
// constant's are known at compile time.
Types leaf(const Types&, const Attributes& attrs) {
  Dims dims = attrs.get_ints("shape");
  require_sane_size(dims);
  auto dtype = parse_dtype(attrs.get_string("dtype"));
  if (!dtype)
    shape_error("unknown dtype '" + attrs.get_string("dtype") + "' (use one of " + dtype_names() +
                ")");
  return {TensorType{*dtype, dims}};
}

Types concrete_leaf(const Types& in, const Attributes& attrs) {
  if (has_symbolic(attrs.get_ints("shape"))) {
    shape_error("a weight or constant needs a known shape, got " +
                to_string(attrs.get_ints("shape")));
  }
  return leaf(in, attrs);
}

Types same_as_first(const Types& in, const Attributes&) {
  return {in[0]};
}

// TENSAT's element-wise ops take equal shapes: TASO's rules assume it (with broadcasting,
// conv(x, a + b) = conv(x, a) + conv(x, b) fails when b is a smaller kernel broadcast up).
Types same_shape_binary(const Types& in, const Attributes&) {
  require_same_dtype(in);
  if (in[0].dims != in[1].dims) {
    shape_error("operands must have equal shapes (add and mul broadcast): " + to_string(in[0]) +
                " and " + to_string(in[1]));
  }
  return {in[0]};
}

Types broadcast_binary(const Types& in, const Attributes&) {
  require_same_dtype(in);
  return {TensorType{in[0].dtype, broadcast(in[0].dims, in[1].dims)}};
}

Types matmul(const Types& in, const Attributes&) {
  require_same_dtype(in);
  const auto& a = in[0];
  const auto& b = in[1];
  if (a.rank() < 2 || b.rank() < 2) {
    shape_error("matmul needs operands of rank >= 2, got " + to_string(a) + " and " + to_string(b));
  }
  if (a.dims[a.rank() - 1] != b.dims[b.rank() - 2]) {
    shape_error("matmul inner dimensions differ: " + to_string(a) + " x " + to_string(b));
  }
  Dims batch_a(a.dims.begin(), a.dims.end() - 2);
  Dims batch_b(b.dims.begin(), b.dims.end() - 2);
  Dims out;
  try {
    out = broadcast(batch_a, batch_b);
  } catch (const Error&) {
    shape_error("matmul batch dimensions do not broadcast: " + to_string(a) + " x " + to_string(b));
  }
  out.push_back(a.dims[a.rank() - 2]);
  out.push_back(b.dims[b.rank() - 1]);
  return {TensorType{a.dtype, out}};
}

// alpha * op(a) op(b), op transposing the last two axes where trans_a / trans_b say so.
Types fused_matmul(const Types& in, const Attributes& attrs) {
  const auto& a = in[0];
  const auto& b = in[1];
  for (const char* flag : {"trans_a", "trans_b"}) {
    int64_t value = attrs.get_int(flag);
    if (value != 0 && value != 1) {
      shape_error(std::string("fused_matmul ") + flag + " must be 0 or 1, got " +
                  std::to_string(value));
    }
  }
  if (a.rank() < 2 || b.rank() < 2) {
    shape_error("fused_matmul needs operands of rank >= 2, got " + to_string(a) + " and " +
                to_string(b));
  }
  Types product = in;
  auto swap_last_two = [](TensorType& t) { std::swap(t.dims[t.rank() - 2], t.dims[t.rank() - 1]); };
  if (attrs.get_int("trans_a") == 1) swap_last_two(product[0]);
  if (attrs.get_int("trans_b") == 1) swap_last_two(product[1]);
  if (product[0].dims.back() != product[1].dims[product[1].rank() - 2]) {
    shape_error("fused_matmul inner dimensions differ: " + to_string(a) +
                (attrs.get_int("trans_a") == 1 ? " transposed" : "") + " x " + to_string(b) +
                (attrs.get_int("trans_b") == 1 ? " transposed" : ""));
  }
  return matmul(product, attrs);
}

// Output size of a sliding window (conv or pool) along one axis. Over a symbolic size the
// window arithmetic must come out as a dim for every value of the symbols: SAME with stride 1
// or a stride that provably divides the size; VALID with a kernel no larger than the size's
// least value and a stride 1 or one that provably divides size - kernel.
int64_t window_output(int64_t size, int64_t kernel, int64_t stride, Padding padding) {
  if (is_symbolic(kernel)) shape_error("kernel size " + dim_text(kernel) + " must be a size");
  require_size_attribute("stride", stride, 1);
  require_size_attribute("kernel size", kernel, 1);
  if (is_symbolic(size)) {
    auto unprovable = [&]() {
      shape_error(std::string(padding == Padding::Same ? "SAME" : "VALID") + " window of size " +
                  std::to_string(kernel) + ", stride " + std::to_string(stride) + " over " +
                  dim_text(size) + " has no output size valid for every value of the symbols");
    };
    if (padding == Padding::Same) {
      auto out = dim_quotient(size, stride);  // ceil(size / stride) when stride divides size
      if (!out) unprovable();
      return *out;
    }
    if (kernel > dim_least_value(size)) unprovable();
    auto steps = dim_quotient(dim_difference(size, kernel), stride);
    if (!steps) unprovable();
    return dim_sum(*steps, 1);
  }
  if (padding == Padding::Same) return (size - 1) / stride + 1;  // ceil(size / stride)
  if (kernel > size) {
    shape_error("VALID window of size " + std::to_string(kernel) + " does not fit in " +
                std::to_string(size));
  }
  return (size - kernel) / stride + 1;
}

Types conv2d(const Types& in, const Attributes& attrs) {
  require_same_dtype(in);
  const auto& x = in[0];
  const auto& w = in[1];
  require_rank(x, 4, "conv2d input (NCHW)");
  require_rank(w, 4, "conv2d weight (OIHW)");
  int64_t channels = x.dims[1];
  // The group count must be a number: channels / weight channels proved exact and constant.
  auto groups = dim_quotient(channels, w.dims[1]);
  if (!groups || is_symbolic(*groups) || *groups <= 0) {
    shape_error("conv2d input channels " + dim_text(channels) +
                " are not a multiple of the weight's " + dim_text(w.dims[1]) + " (" + to_string(x) +
                ", " + to_string(w) + ")");
  }
  if (!dim_quotient(w.dims[0], *groups)) {
    shape_error("conv2d output channels " + dim_text(w.dims[0]) + " are not a multiple of the " +
                std::to_string(*groups) + " groups");
  }
  Padding padding = attrs.get_padding();
  return {TensorType{x.dtype,
                     {x.dims[0], w.dims[0],
                      window_output(x.dims[2], w.dims[2], attrs.get_int("stride_h"), padding),
                      window_output(x.dims[3], w.dims[3], attrs.get_int("stride_w"), padding)}}};
}

// conv2d(input, weight) + bias [+ sum], then the activation: bias holds one value per output
// channel, shaped (C), (C, 1, 1) or (1, C, 1, 1); the optional sum has the output's shape.
Types fused_conv(const Types& in, const Attributes& attrs) {
  Types out = conv2d({in[0], in[1]}, attrs);
  require_same_dtype(in);
  const TensorType& y = out[0];
  const Dims& bias = in[2].dims;
  int64_t channels = y.dims[1];
  bool per_channel =
      bias == Dims{channels} || bias == Dims{channels, 1, 1} || bias == Dims{1, channels, 1, 1};
  if (!per_channel) {
    shape_error("fused_conv bias must hold one value per output channel, shaped (" +
                dim_text(channels) + "), (" + dim_text(channels) + ", 1, 1) or (1, " +
                dim_text(channels) + ", 1, 1), got " + to_string(in[2]));
  }
  if (in.size() > 3 && in[3].dims != y.dims) {
    shape_error("fused_conv sum must have the output's shape " + to_string(y) + ", got " +
                to_string(in[3]));
  }
  if (attrs.get_activation() == Activation::Clip &&
      attrs.get_float("activation_alpha") > attrs.get_float("activation_beta")) {
    shape_error("fused_conv's clip min " + format_double(attrs.get_float("activation_alpha")) +
                " exceeds its max " + format_double(attrs.get_float("activation_beta")));
  }
  return out;
}

Types pool(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  require_rank(x, 4, "pool input (NCHW)");
  Padding padding = attrs.get_padding();
  return {TensorType{
      x.dtype,
      {x.dims[0], x.dims[1],
       window_output(x.dims[2], attrs.get_int("kernel_h"), attrs.get_int("stride_h"), padding),
       window_output(x.dims[3], attrs.get_int("kernel_w"), attrs.get_int("stride_w"), padding)}}};
}

Types transpose(const Types& in, const Attributes& attrs) {
  const auto& perm = attrs.get_ints("perm");
  const auto& x = in[0];
  if (static_cast<int>(perm.size()) != x.rank()) {
    shape_error("transpose permutation " + to_string(perm) + " does not match rank of " +
                to_string(x));
  }
  std::vector<bool> seen(perm.size(), false);
  Dims out;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.rank() || seen[p]) {
      shape_error("transpose permutation " + to_string(perm) + " is not a permutation");
    }
    seen[p] = true;
    out.push_back(x.dims[p]);
  }
  return {TensorType{x.dtype, out}};
}

Types enlarge(const Types& in, const Attributes&) {
  const auto& kernel = in[0];
  const auto& reference = in[1];
  require_rank(kernel, 4, "enlarge kernel");
  require_rank(reference, 4, "enlarge reference kernel");
  for (int axis = 2; axis < 4; ++axis) {
    if (reference.dims[axis] == kernel.dims[axis]) continue;
    if (is_symbolic(reference.dims[axis]) || is_symbolic(kernel.dims[axis])) {
      shape_error("enlarge cannot centre kernel " + to_string(kernel) + " in " +
                  to_string(reference) + " (a symbolic spatial size differs)");
    }
    int64_t grow = reference.dims[axis] - kernel.dims[axis];
    if (grow < 0 || grow % 2 != 0) {
      shape_error("enlarge cannot centre kernel " + to_string(kernel) + " in " +
                  to_string(reference) + " (needs an even, non-negative size difference)");
    }
  }
  return {TensorType{kernel.dtype,
                     {kernel.dims[0], kernel.dims[1], reference.dims[2], reference.dims[3]}}};
}

Types concat(const Types& in, const Attributes& attrs) {
  require_same_dtype(in);
  int axis = normalize_axis(attrs.get_int("axis"), in[0].rank());
  Dims out = in[0].dims;
  out[axis] = 0;
  for (const auto& t : in) {
    bool compatible = t.rank() == in[0].rank();
    for (int d = 0; compatible && d < t.rank(); ++d) {
      if (d != axis && t.dims[d] != in[0].dims[d]) compatible = false;
    }
    if (!compatible) {
      shape_error("concat on axis " + std::to_string(axis) + " of " + to_string(in[0]) + " and " +
                  to_string(t) + ": other dimensions differ");
    }
    // Sizes: each term is at most kMaxElements, so the sum cannot overflow; symbolic: `p + s`.
    out[axis] = dim_sum(out[axis], t.dims[axis]);
    require_sane_size(out);
  }
  return {TensorType{in[0].dtype, out}};
}

Types split(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  int axis = normalize_axis(attrs.get_int("axis"), x.rank());
  const auto& sizes = attrs.get_ints("sizes");
  if (sizes.empty()) shape_error("split needs at least one size");
  // The sizes are numbers; they add up to a symbolic axis for no value of its symbols but
  // none (a symbolic dim is never provably equal to a size), so such a split is refused.
  if (is_symbolic(x.dims[axis])) {
    shape_error("split sizes " + to_string(sizes) + " do not provably add up to dimension " +
                std::to_string(axis) + " of " + to_string(x));
  }
  int64_t total = 0;
  Types out;
  for (int64_t s : sizes) {
    if (s <= 0 || is_symbolic(s)) {
      shape_error("split sizes must be positive, got " + to_string(sizes));
    }
    if (s > x.dims[axis]) {
      shape_error("split size " + std::to_string(s) + " of " + to_string(sizes) +
                  " is larger than dimension " + std::to_string(axis) + " of " + to_string(x));
    }
    total += s;  // stops once past the axis: never more than twice kMaxElements
    if (total > x.dims[axis]) break;
    Dims dims = x.dims;
    dims[axis] = s;
    out.push_back(TensorType{x.dtype, dims});
  }
  if (total != x.dims[axis]) {
    shape_error("split sizes " + to_string(sizes) + " do not add up to dimension " +
                std::to_string(axis) + " of " + to_string(x));
  }
  return out;
}

Types merge(const Types& in, const Attributes& attrs) {
  const auto& w = in[0];
  require_rank(w, 4, "merge weight");
  int64_t count = attrs.get_int("count");
  if (count <= 0 || count > kMaxElements || !dim_quotient(w.dims[0], count)) {
    shape_error("merge count " + std::to_string(count) +
                " must be positive and divide the output channels of " + to_string(w));
  }
  return {TensorType{w.dtype, {w.dims[0], dim_product(w.dims[1], count), w.dims[2], w.dims[3]}}};
}

// The target's entries are sizes or symbolic dims, one of them may be -1 (inferred); 0 (ONNX's
// "copy") is not taken. Valid iff the element counts are equal as dims (dim_product of the
// target == dim_product of x, proved on the normal form); -1 is the exact quotient of the
// counts.
Types reshape(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  Dims shape = attrs.get_ints("shape");
  auto refuse = [&]() {
    shape_error("cannot reshape " + to_string(x) + " to " + to_string(attrs.get_ints("shape")));
  };
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (!is_symbolic(shape[i]) && shape[i] <= 0) {
      shape_error("reshape target " + to_string(shape) +
                  " has a dimension that is neither positive nor a single -1");
    }
  }
  const int64_t count = x.element_count_dim();
  // The product of the known entries, refused as soon as a size entry passes x's element count
  // (so the product of sizes stays below kMaxElements and cannot overflow).
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (static_cast<int>(i) == inferred) continue;
    if (!is_symbolic(shape[i]) && shape[i] > kMaxElements) refuse();
    try {
      known = dim_product(known, shape[i]);
    } catch (const Error&) {
      refuse();
    }
    if (!is_symbolic(known) && !is_symbolic(count) && known > count) refuse();
  }
  if (inferred >= 0) {
    auto quotient = dim_quotient(count, known);
    if (!quotient || *quotient == 0) refuse();
    shape[inferred] = *quotient;
  }
  if (dim_product(shape) != count) refuse();
  return {TensorType{x.dtype, shape}};
}

Types batchnorm(const Types& in, const Attributes&) {
  require_same_dtype(in);
  const auto& x = in[0];
  if (x.rank() < 2) shape_error("batchnorm input must have rank >= 2, got " + to_string(x));
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].dims != Dims{x.dims[1]}) {
      shape_error("batchnorm parameters must have shape [" + dim_text(x.dims[1]) + "], got " +
                  to_string(in[i]));
    }
  }
  return {x};
}

Types softmax(const Types& in, const Attributes& attrs) {
  normalize_axis(attrs.get_int("axis"), in[0].rank());
  return {in[0]};
}

// A normalization over the axes from `axis` to the last: every parameter after x (`params`
// names them in errors) has exactly those axes' shape.
Types normalization(const Types& in, const Attributes& attrs, const std::string& params) {
  require_same_dtype(in);
  const auto& x = in[0];
  int axis = normalize_axis(attrs.get_int("axis"), x.rank());
  Dims normalized(x.dims.begin() + axis, x.dims.end());
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].dims != normalized) {
      shape_error(params + " must have shape " + to_string(normalized) + ", got " +
                  to_string(in[i]));
    }
  }
  return {x};
}

Types layernorm(const Types& in, const Attributes& attrs) {
  return normalization(in, attrs, "layernorm scale and bias");
}

Types rms_norm(const Types& in, const Attributes& attrs) {
  return normalization(in, attrs, "rms_norm scale");
}

// x + skip, then normalized over the last axis: (normalized, sum). ONNX Runtime's kernels take
// x of rank 2 or 3 and one parameter per hidden feature; skip has x's shape, or (1, S, D) for
// x (B, S, D), shared by every batch row (BERT's position embeddings under a dynamic batch).
Types skip_normalization(const Types& in, const std::string& name) {
  require_same_dtype(in);
  const auto& x = in[0];
  if (x.rank() < 2 || x.rank() > 3) {
    shape_error(name + " needs x of rank 2 or 3 (tokens by features), got " + to_string(x));
  }
  const bool shared_rows = x.rank() == 3 && in[1].dims == Dims{1, x.dims[1], x.dims[2]};
  if (in[1].dims != x.dims && !shared_rows) {
    std::string shared =
        x.rank() == 3 ? " or [1 " + dim_text(x.dims[1]) + " " + dim_text(x.dims[2]) + "]" : "";
    shape_error(name + " skip must have x's shape " + to_string(x.dims) + shared + ", got " +
                to_string(in[1]));
  }
  for (size_t i = 2; i < in.size(); ++i) {
    if (in[i].dims != Dims{x.dims.back()}) {
      shape_error(name + " scale and bias must have shape [" + dim_text(x.dims.back()) + "], got " +
                  to_string(in[i]));
    }
  }
  return {x, x};
}

Types skip_layer_norm(const Types& in, const Attributes&) {
  return skip_normalization(in, "skip_layer_norm");
}

Types skip_rms_norm(const Types& in, const Attributes&) {
  return skip_normalization(in, "skip_rms_norm");
}

// gelu(x + bias) with a bias along the last axis (ONNX Runtime's BiasGelu takes no other).
Types bias_gelu(const Types& in, const Attributes&) {
  require_same_dtype(in);
  const auto& x = in[0];
  if (x.rank() < 1 || in[1].rank() != 1 || in[1].dims[0] != x.dims.back()) {
    shape_error("bias_gelu bias must have shape [" +
                (x.rank() < 1 ? std::string("last dim") : dim_text(x.dims.back())) + "], got " +
                to_string(in[1]));
  }
  return {x};
}

Types reduce_mean(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  if (attrs.get_ints("axes").empty()) shape_error("reduce_mean needs at least one axis");
  int64_t keepdims = attrs.get_int("keepdims");
  if (keepdims != 0 && keepdims != 1) {
    shape_error("reduce_mean keepdims must be 0 or 1, got " + std::to_string(keepdims));
  }
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t axis : attrs.get_ints("axes")) {
    int a = normalize_axis(axis, x.rank());
    if (reduced[a]) shape_error("reduce_mean axes repeat axis " + std::to_string(a));
    reduced[a] = true;
  }
  bool keep = keepdims == 1;
  Dims out;
  for (int d = 0; d < x.rank(); ++d) {
    if (!reduced[d]) {
      out.push_back(x.dims[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return {TensorType{x.dtype, out}};
}

// softmax(q k / scale) v over the last two axes; k comes already transposed, (..., d, n).
Types attention(const Types& in, const Attributes& attrs) {
  if (attrs.get_float("scale") == 0) shape_error("attention needs a non-zero scale");
  Types scores = matmul({in[0], in[1]}, attrs);
  return matmul({scores[0], in[2]}, attrs);
}

// q (B, S, D), k (B, L, D), v (B, L, Dv), optional additive bias broadcasting to (B, N, S, L);
// out (B, S, Dv). Heads split D and Dv into num_heads equal parts.
Types multi_head_attention(const Types& in, const Attributes& attrs) {
  require_same_dtype(in);
  const int64_t heads = attrs.get_int("num_heads");
  if (heads <= 0) shape_error("multi_head_attention needs a positive num_heads");
  const auto& q = in[0];
  const auto& k = in[1];
  const auto& v = in[2];
  require_rank(q, 3, "multi_head_attention q");
  // k and v are (B, L, D) and (B, L, Dv), or both split into heads already: (B, N, L, H) and
  // (B, N, L, Hv) (ONNX Runtime's BNSH key and value, as a key-value cache holds them).
  const bool head_split = k.rank() == 4;
  require_rank(k, head_split ? 4 : 3, "multi_head_attention k");
  require_rank(v, head_split ? 4 : 3, "multi_head_attention v");
  const int64_t keys = head_split ? k.dims[2] : k.dims[1];
  const int64_t key_width = head_split ? dim_product(k.dims[1], k.dims[3]) : k.dims[2];
  const int64_t value_width = head_split ? dim_product(v.dims[1], v.dims[3]) : v.dims[2];
  const bool heads_agree = !head_split || (k.dims[1] == heads && v.dims[1] == heads);
  const int64_t value_keys = head_split ? v.dims[2] : v.dims[1];
  if (k.dims[0] != q.dims[0] || v.dims[0] != q.dims[0] || keys != value_keys ||
      key_width != q.dims[2] || !heads_agree) {
    shape_error(
        "multi_head_attention needs q (B, S, D), k (B, L, D) and v (B, L, Dv), or k "
        "(B, N, L, D / N) and v (B, N, L, Dv / N), got " +
        to_string(q) + ", " + to_string(k) + ", " + to_string(v) + " with " +
        std::to_string(heads) + " heads");
  }
  if (!dim_quotient(q.dims[2], heads) || !dim_quotient(value_width, heads)) {
    shape_error("multi_head_attention: " + std::to_string(heads) + " heads do not divide " +
                to_string(q) + " and " + to_string(v));
  }
  if (in.size() == 4) {
    const Dims scores{q.dims[0], heads, q.dims[1], keys};
    const Dims& bias = in[3].dims;
    bool fits = bias.size() <= scores.size();
    for (size_t i = 0; fits && i < bias.size(); ++i) {
      const int64_t d = bias[bias.size() - 1 - i];
      fits = d == 1 || d == scores[scores.size() - 1 - i];
    }
    if (!fits) {
      shape_error("multi_head_attention bias " + to_string(in[3]) +
                  " does not broadcast to the scores " + to_string(scores));
    }
  }
  return {TensorType{q.dtype, {q.dims[0], q.dims[1], value_width}}};
}

// x (B, S, Din) projected by weight (Din, 3 D) plus bias (3 D) into q, k and v (B, S, D), then
// multi_head_attention with the optional attention bias.
Types qkv_attention(const Types& in, const Attributes& attrs) {
  require_same_dtype(in);
  const auto& x = in[0];
  const auto& weight = in[1];
  require_rank(x, 3, "qkv_attention x");
  require_rank(weight, 2, "qkv_attention weight");
  const auto hidden = dim_quotient(weight.dims[1], 3);
  if (weight.dims[0] != x.dims[2] || !hidden) {
    shape_error("qkv_attention needs a weight (" + dim_text(x.dims[2]) + ", 3 D) for x " +
                to_string(x) + ", got " + to_string(weight));
  }
  if (in[2].dims != Dims{weight.dims[1]}) {
    shape_error("qkv_attention bias must be (" + dim_text(weight.dims[1]) + "), got " +
                to_string(in[2]));
  }
  const TensorType projected{x.dtype, {x.dims[0], x.dims[1], *hidden}};
  Types heads_in{projected, projected, projected};
  if (in.size() == 4) heads_in.push_back(in[3]);
  return multi_head_attention(heads_in, attrs);
}

// Elements [start, end) of one axis; the importer normalizes ONNX's negative and clamped bounds
// on a sized axis. On a symbolic axis ONNX's clamping cannot be decided, so the bounds must hold
// for every value of the symbols: 0 <= start < end <= the axis's least value (a part of fixed
// size), or end the "to the end" sentinel kSliceToEnd with start <= the least value (the rest,
// dim - start).
Types slice(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  int axis = normalize_axis(attrs.get_int("axis"), x.rank());
  int64_t start = attrs.get_int("start");
  int64_t end = attrs.get_int("end");
  const int64_t dim = x.dims[axis];
  Dims out = x.dims;
  if (is_symbolic(dim)) {
    const int64_t least = dim_least_value(dim);
    if (end == kSliceToEnd && start >= 0 && start <= least) {
      out[axis] = dim_difference(dim, start);
    } else if (start >= 0 && start < end && end <= least) {
      out[axis] = end - start;
    } else {
      shape_error("slice [" + std::to_string(start) + ", " + std::to_string(end) + ") of axis " +
                  std::to_string(axis) + " of " + to_string(x) +
                  " is not provably inside the axis (its least value is " + std::to_string(least) +
                  ")");
    }
    return {TensorType{x.dtype, out}};
  }
  if (start < 0 || start >= end || end > dim) {
    shape_error("slice [" + std::to_string(start) + ", " + std::to_string(end) + ") of axis " +
                std::to_string(axis) + " of " + to_string(x) +
                " is not a non-empty range inside the axis");
  }
  out[axis] = end - start;
  return {TensorType{x.dtype, out}};
}

// x (B, N, S, H) with H even; cos and sin (S, H) with any number of leading 1s.
Types rotary_embedding(const Types& in, const Attributes&) {
  require_same_dtype(in);
  const auto& x = in[0];
  require_rank(x, 4, "rotary_embedding x");
  if (!dim_quotient(x.dims[3], 2)) {
    shape_error("rotary_embedding needs an even head size, got " + to_string(x));
  }
  for (size_t k = 1; k < 3; ++k) {
    const Dims& table = in[k].dims;
    bool fits = table.size() >= 2 && table.size() <= 4 && table[table.size() - 1] == x.dims[3] &&
                table[table.size() - 2] == x.dims[2];
    for (size_t i = 0; fits && i + 2 < table.size(); ++i) fits = table[i] == 1;
    if (!fits) {
      shape_error(std::string("rotary_embedding ") + (k == 1 ? "cos" : "sin") +
                  " must have shape (S, H) = (" + dim_text(x.dims[2]) + ", " + dim_text(x.dims[3]) +
                  ") with leading 1s only, got " + to_string(in[k]));
    }
  }
  return {x};
}

Types clip(const Types& in, const Attributes& attrs) {
  if (attrs.get_float("min") > attrs.get_float("max")) {
    shape_error("clip min " + format_double(attrs.get_float("min")) + " exceeds max " +
                format_double(attrs.get_float("max")));
  }
  return {in[0]};
}

Types pad(const Types& in, const Attributes& attrs) {
  const auto& x = in[0];
  const auto& pads = attrs.get_ints("pads");
  if (static_cast<int>(pads.size()) != 2 * x.rank()) {
    shape_error("pad needs 2 x rank = " + std::to_string(2 * x.rank()) + " pads for " +
                to_string(x) + ", got " + to_string(pads));
  }
  Dims out = x.dims;
  for (int axis = 0; axis < x.rank(); ++axis) {
    int64_t begin = pads[axis];
    int64_t end = pads[axis + x.rank()];
    if (begin < 0 || end < 0) shape_error("pad pads must be non-negative, got " + to_string(pads));
    require_size_attribute("pad", begin, 0);
    require_size_attribute("pad", end, 0);
    out[axis] = dim_sum(out[axis], begin + end);  // three terms of at most kMaxElements each
  }
  require_sane_size(out);
  return {TensorType{x.dtype, out}};
}

// An opaque operator's outputs are whatever the importer recorded: "f32[1 3];f32[10]".
Types opaque(const Types&, const Attributes& attrs) {
  const std::string& text = attrs.get_string("output_types");
  Types out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string_view item = std::string_view(text).substr(start, end - start);
    auto type = parse_tensor_type(item);
    if (!type) {
      shape_error("opaque output_types '" + text + "': '" + std::string(item) +
                  "' is not a type like f32[1 3 224 224]");
    }
    if (!type->dims.empty()) require_sane_size(type->dims);
    out.push_back(*type);
    start = end + 1;
  }
  return out;
}

AttrSpec required(std::string name, AttrKind kind) {
  return {std::move(name), kind, std::nullopt};
}
AttrSpec with_default(std::string name, AttrKind kind, AttrValue value) {
  return {std::move(name), kind, std::move(value)};
}

std::vector<AttrSpec> leaf_attrs() {
  return {required("shape", AttrKind::Ints), with_default("dtype", AttrKind::String, "f32")};
}
AttrSpec activation_attr() {
  return with_default("activation", AttrKind::Activation, int64_t{0});
}
std::vector<AttrSpec> window_attrs(bool with_kernel) {
  std::vector<AttrSpec> attrs;
  if (with_kernel) {
    attrs.push_back(required("kernel_h", AttrKind::Int));
    attrs.push_back(required("kernel_w", AttrKind::Int));
  }
  attrs.push_back(with_default("stride_h", AttrKind::Int, int64_t{1}));
  attrs.push_back(with_default("stride_w", AttrKind::Int, int64_t{1}));
  attrs.push_back(with_default("padding", AttrKind::Padding, int64_t{0}));
  attrs.push_back(activation_attr());
  return attrs;
}

// conv2d's, and the parameters of an activation that has them (ONNX Runtime's
// activation_params).
std::vector<AttrSpec> fused_conv_attrs() {
  std::vector<AttrSpec> attrs = window_attrs(false);
  attrs.push_back(with_default("activation_alpha", AttrKind::Float, 0.0));
  attrs.push_back(with_default("activation_beta", AttrKind::Float, 0.0));
  return attrs;
}

OpInfo unary(OpKind kind, std::string name, std::string camel_name, OpCategory category,
             std::string description) {
  return {kind,     std::move(name),        std::move(camel_name), 1, 1, {"x"}, {},
          category, std::move(description), same_as_first};
}
OpInfo binary(OpKind kind, std::string name, std::string camel_name, std::string description,
              ShapeInference infer = broadcast_binary) {
  return {kind,
          std::move(name),
          std::move(camel_name),
          2,
          2,
          {"a", "b"},
          {},
          OpCategory::Elementwise,
          std::move(description),
          std::move(infer)};
}

}  // namespace

std::vector<OpInfo> make_operator_table() {
  constexpr int kVariadic = OpInfo::kVariadic;
  std::vector<OpInfo> ops = {
      {OpKind::Input,
       "input",
       "Input",
       0,
       0,
       {},
       leaf_attrs(),
       OpCategory::Leaf,
       "A graph input, fed at run time; its shape may hold symbolic dims (batch, sequence).",
       leaf},
      {OpKind::Weight,
       "weight",
       "Weight",
       0,
       0,
       {},
       leaf_attrs(),
       OpCategory::Leaf,
       "A trained parameter, known at compile time (its shape too).",
       concrete_leaf},
      {OpKind::Constant,
       "constant",
       "Constant",
       0,
       0,
       {},
       {required("shape", AttrKind::Ints), required("value", AttrKind::Float),
        with_default("dtype", AttrKind::String, "f32")},
       OpCategory::Leaf,
       "A tensor filled with one known value.",
       concrete_leaf},
      binary(OpKind::EwAdd, "ewadd", "EwAdd",
             "Element-wise a + b of equal shapes (TENSAT's ewadd).", same_shape_binary),
      binary(OpKind::EwMul, "ewmul", "EwMul",
             "Element-wise a * b of equal shapes (TENSAT's ewmul).", same_shape_binary),
      {OpKind::MatMul,
       "matmul",
       "MatMul",
       2,
       2,
       {"a", "b"},
       {activation_attr()},
       OpCategory::Contraction,
       "Matrix product over the last two axes (batched, batch axes broadcast), then the fused "
       "activation.",
       matmul},
      {OpKind::FusedMatMul,
       "fused_matmul",
       "FusedMatMul",
       2,
       2,
       {"a", "b"},
       {with_default("alpha", AttrKind::Float, 1.0),
        with_default("trans_a", AttrKind::Int, int64_t{0}),
        with_default("trans_b", AttrKind::Int, int64_t{0})},
       OpCategory::Contraction,
       "alpha * op(a) op(b), op transposing the last two axes where trans_a / trans_b is 1; "
       "batch axes broadcast as for matmul. ONNX Runtime's com.microsoft.FusedMatMul.",
       fused_matmul},
      {OpKind::Conv2d,
       "conv2d",
       "Conv2d",
       2,
       2,
       {"input", "weight"},
       window_attrs(false),
       OpCategory::Contraction,
       "2-D convolution, NCHW input and OIHW weight; groups = input channels / weight dim 1; "
       "SAME pads to ceil(H/stride) (extra padding at the end), then the fused activation.",
       conv2d},
      {OpKind::FusedConv,
       "fused_conv",
       "FusedConv",
       3,
       4,
       {"input", "weight", "bias", "sum"},
       fused_conv_attrs(),
       OpCategory::Contraction,
       "activation(conv2d(input, weight) + bias + sum): conv2d's attributes, bias one value per "
       "output channel ((C), (C, 1, 1) or (1, C, 1, 1)), the optional sum of the output's shape "
       "(a residual); the activation may also be clip (activation_alpha min, activation_beta "
       "max), leaky_relu (alpha) or hard_sigmoid (alpha, beta). ONNX Runtime's "
       "com.microsoft.FusedConv (a standard Conv with its bias where there is neither activation "
       "nor sum).",
       fused_conv},
      unary(OpKind::Relu, "relu", "Relu", OpCategory::Elementwise, "max(x, 0)."),
      unary(OpKind::Tanh, "tanh", "Tanh", OpCategory::Elementwise, "Hyperbolic tangent."),
      unary(OpKind::Sigmoid, "sigmoid", "Sigmoid", OpCategory::Elementwise, "1 / (1 + exp(-x))."),
      {OpKind::PoolMax,
       "poolmax",
       "PoolMax",
       1,
       1,
       {"input"},
       window_attrs(true),
       OpCategory::Reduction,
       "2-D max pooling over NCHW windows (padding never wins), then the fused activation.",
       pool},
      {OpKind::PoolAvg,
       "poolavg",
       "PoolAvg",
       1,
       1,
       {"input"},
       window_attrs(true),
       OpCategory::Reduction,
       "2-D average pooling over NCHW windows, averaging the in-bounds elements only, then the "
       "fused activation.",
       pool},
      {OpKind::Transpose,
       "transpose",
       "Transpose",
       1,
       1,
       {"x"},
       {required("perm", AttrKind::Ints)},
       OpCategory::Layout,
       "Permutes axes: output axis i is input axis perm[i].",
       transpose},
      {OpKind::Enlarge,
       "enlarge",
       "Enlarge",
       2,
       2,
       {"kernel", "reference"},
       {},
       OpCategory::Layout,
       "Zero-pads a conv kernel, centred, to the reference kernel's spatial size.",
       enlarge},
      {OpKind::Concat,
       "concat",
       "Concat",
       1,
       kVariadic,
       {"inputs"},
       {required("axis", AttrKind::Int)},
       OpCategory::Layout,
       "Joins tensors along one axis (n-ary).",
       concat},
      {OpKind::Split,
       "split",
       "Split",
       1,
       1,
       {"x"},
       {required("axis", AttrKind::Int), required("sizes", AttrKind::Ints)},
       OpCategory::Layout,
       "Cuts a tensor along one axis into parts of the given sizes (one output per part).",
       split,
       OpInfo::kVariadic},
      {OpKind::Merge,
       "merge",
       "Merge",
       1,
       1,
       {"weight"},
       {required("count", AttrKind::Int)},
       OpCategory::Layout,
       "Grouped-conv weight to one with `count` times fewer groups, zero-filled (TASO's "
       "merge_gconv: output channel o keeps its inputs at block o / (O / count)).",
       merge},
      {OpKind::Reshape,
       "reshape",
       "Reshape",
       1,
       1,
       {"x"},
       {required("shape", AttrKind::Ints)},
       OpCategory::Layout,
       "Same elements, row-major, new shape (one -1 is inferred; entries may be symbolic dims, "
       "and the element counts must be provably equal).",
       reshape},
      {OpKind::BatchNorm,
       "batchnorm",
       "BatchNorm",
       5,
       5,
       {"input", "scale", "bias", "mean", "var"},
       {with_default("epsilon", AttrKind::Float, 1e-5)},
       OpCategory::Other,
       "Inference batch normalization over axis 1.",
       batchnorm},
      {OpKind::Noop,
       "noop",
       "Noop",
       2,
       2,
       {"a", "b"},
       {},
       OpCategory::Other,
       "Joins two values into one root (the e-graph's single root); its value is a's.",
       same_as_first},
      binary(OpKind::Add, "add", "Add", "a + b with numpy broadcasting (a bias add, say)."),
      binary(OpKind::Mul, "mul", "Mul", "a * b with numpy broadcasting (a scale, say)."),
      binary(OpKind::Sub, "sub", "Sub", "Element-wise a - b with numpy broadcasting."),
      binary(OpKind::Div, "div", "Div", "Element-wise a / b with numpy broadcasting."),
      binary(OpKind::Pow, "pow", "Pow", "Element-wise a ^ b with numpy broadcasting."),
      unary(OpKind::Sqrt, "sqrt", "Sqrt", OpCategory::Elementwise, "Square root."),
      unary(OpKind::Erf, "erf", "Erf", OpCategory::Elementwise, "Gauss error function."),
      unary(OpKind::Exp, "exp", "Exp", OpCategory::Elementwise, "e^x."),
      unary(OpKind::Gelu, "gelu", "Gelu", OpCategory::Elementwise,
            "x * (1 + erf(x / sqrt 2)) / 2."),
      {OpKind::Clip,
       "clip",
       "Clip",
       1,
       1,
       {"x"},
       {required("min", AttrKind::Float), required("max", AttrKind::Float)},
       OpCategory::Elementwise,
       "min(max(x, min), max); relu6 is clip 0 6.",
       clip},
      {OpKind::LeakyRelu,
       "leaky_relu",
       "LeakyRelu",
       1,
       1,
       {"x"},
       {with_default("alpha", AttrKind::Float, 0.01)},
       OpCategory::Elementwise,
       "x for x >= 0, alpha * x below.",
       same_as_first},
      {OpKind::HardSigmoid,
       "hard_sigmoid",
       "HardSigmoid",
       1,
       1,
       {"x"},
       {with_default("alpha", AttrKind::Float, 0.2), with_default("beta", AttrKind::Float, 0.5)},
       OpCategory::Elementwise,
       "max(0, min(1, alpha * x + beta)); PyTorch's hardsigmoid is alpha 1/6.",
       same_as_first},
      {OpKind::Softmax,
       "softmax",
       "Softmax",
       1,
       1,
       {"x"},
       {with_default("axis", AttrKind::Int, int64_t{-1})},
       OpCategory::Reduction,
       "exp(x) / sum exp(x) along one axis.",
       softmax},
      {OpKind::LayerNorm,
       "layernorm",
       "LayerNorm",
       3,
       3,
       {"x", "scale", "bias"},
       {with_default("axis", AttrKind::Int, int64_t{-1}),
        with_default("epsilon", AttrKind::Float, 1e-5)},
       OpCategory::Reduction,
       "Normalizes over the axes from `axis` to the last, then scales and shifts.",
       layernorm},
      {OpKind::RMSNorm,
       "rms_norm",
       "RMSNorm",
       2,
       2,
       {"x", "scale"},
       {with_default("axis", AttrKind::Int, int64_t{-1}),
        with_default("epsilon", AttrKind::Float, 1e-5)},
       OpCategory::Reduction,
       "x / sqrt(mean(x^2) + epsilon) * scale, the mean over the axes from `axis` to the last "
       "(RMSNorm). ONNX Runtime's SimplifiedLayerNormalization.",
       rms_norm},
      {OpKind::BiasGelu,
       "bias_gelu",
       "BiasGelu",
       2,
       2,
       {"x", "bias"},
       {},
       OpCategory::Elementwise,
       "gelu(x + bias), the exact (erf) GELU, bias along the last axis. ONNX Runtime's BiasGelu.",
       bias_gelu},
      unary(OpKind::FastGelu, "fast_gelu", "FastGelu", OpCategory::Elementwise,
            "x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2, the tanh approximation of "
            "GELU (GPT-2's). ONNX Runtime's FastGelu."),
      {OpKind::QuickGelu,
       "quick_gelu",
       "QuickGelu",
       1,
       1,
       {"x"},
       {with_default("alpha", AttrKind::Float, 1.702)},
       OpCategory::Elementwise,
       "x * sigmoid(alpha * x); SiLU (swish) is alpha 1. ONNX Runtime's QuickGelu.",
       same_as_first},
      {OpKind::SkipLayerNorm,
       "skip_layer_norm",
       "SkipLayerNorm",
       4,
       4,
       {"x", "skip", "scale", "bias"},
       {with_default("epsilon", AttrKind::Float, 1e-5)},
       OpCategory::Reduction,
       "Two outputs: layernorm(x + skip) over the last axis, and the sum x + skip itself (the "
       "residual stream of a pre-norm block). x (tokens, D) or (B, S, D). ONNX Runtime's "
       "com.microsoft.SkipLayerNormalization.",
       skip_layer_norm,
       2},
      {OpKind::SkipRMSNorm,
       "skip_rms_norm",
       "SkipRMSNorm",
       3,
       3,
       {"x", "skip", "scale"},
       {with_default("epsilon", AttrKind::Float, 1e-5)},
       OpCategory::Reduction,
       "Two outputs: rms_norm(x + skip) over the last axis, and the sum x + skip itself. x "
       "(tokens, D) or (B, S, D). ONNX Runtime's com.microsoft.SkipSimplifiedLayerNormalization.",
       skip_rms_norm,
       2},
      {OpKind::RotaryEmbedding,
       "rotary_embedding",
       "RotaryEmbedding",
       3,
       3,
       {"x", "cos", "sin"},
       {},
       OpCategory::Elementwise,
       "x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x[..., H/2:], x[..., :H/2]); x "
       "(B, N, S, H), cos and sin (S, H) broadcast over batch and heads. ONNX Runtime's "
       "com.microsoft.RotaryEmbedding where each table repeats its first half (as every "
       "rotate-half table does); otherwise written as the formula.",
       rotary_embedding},
      {OpKind::ReduceMean,
       "reduce_mean",
       "ReduceMean",
       1,
       1,
       {"x"},
       {required("axes", AttrKind::Ints), with_default("keepdims", AttrKind::Int, int64_t{1})},
       OpCategory::Reduction,
       "Mean over the given axes.",
       reduce_mean},
      {OpKind::Attention,
       "attention",
       "Attention",
       3,
       3,
       {"q", "k", "v"},
       {with_default("scale", AttrKind::Float, 1.0)},
       OpCategory::Contraction,
       "softmax(q k / scale, last axis) v; k is given transposed, (..., d, n).",
       attention},
      {OpKind::MultiHeadAttention,
       "multi_head_attention",
       "MultiHeadAttention",
       3,
       4,
       {"q", "k", "v", "bias"},
       {required("num_heads", AttrKind::Int), required("scale", AttrKind::Float)},
       OpCategory::Contraction,
       "softmax(q_h k_h^T * scale + bias) v_h per head h, heads split from the last axis of "
       "q (B, S, D), k (B, L, D), v (B, L, Dv) (or k and v given as heads, (B, num_heads, L, "
       "D / num_heads) and (B, num_heads, L, Dv / num_heads)) and merged back into (B, S, Dv); "
       "the optional bias broadcasts to (B, num_heads, S, L). ONNX Runtime's "
       "com.microsoft.MultiHeadAttention.",
       multi_head_attention},
      {OpKind::QkvAttention,
       "qkv_attention",
       "QkvAttention",
       3,
       4,
       {"x", "weight", "bias", "attention_bias"},
       {required("num_heads", AttrKind::Int), required("scale", AttrKind::Float)},
       OpCategory::Contraction,
       "multi_head_attention(q, k, v, attention_bias) of the projections [q k v] = x weight + "
       "bias: x (B, S, Din), weight (Din, 3 D) packing the three projections' weights, bias "
       "(3 D). ONNX Runtime's com.microsoft.Attention.",
       qkv_attention},
      {OpKind::Pad,
       "pad",
       "Pad",
       1,
       1,
       {"x"},
       {required("pads", AttrKind::Ints)},
       OpCategory::Layout,
       "Zero padding; pads in ONNX order [x1_begin, x2_begin, ..., x1_end, x2_end, ...].",
       pad},
      {OpKind::Slice,
       "slice",
       "Slice",
       1,
       1,
       {"x"},
       {required("axis", AttrKind::Int), required("start", AttrKind::Int),
        required("end", AttrKind::Int)},
       OpCategory::Layout,
       "Elements [start, end) of one axis, step 1 (ONNX Slice with constant bounds); on a symbolic "
       "axis end may be INT64_MAX, to the end.",
       slice},
      {OpKind::Opaque,
       "opaque",
       "Opaque",
       0,
       kVariadic,
       {"inputs"},
       {required("op_type", AttrKind::String), with_default("domain", AttrKind::String, ""),
        with_default("onnx_attributes", AttrKind::String, ""),
        required("output_types", AttrKind::String)},
       OpCategory::Other,
       "An ONNX operator Saturate does not know, carried through unchanged: op_type and domain "
       "name it, onnx_attributes holds its attributes (base64 of a serialized NodeProto), "
       "output_types its outputs (\"f32[1 3];f32[10]\"). No rule matches it.",
       opaque,
       OpInfo::kVariadic},
  };
  return ops;
}

const OnnxOperator& onnx_operator(OpKind kind) {
  static const std::vector<OnnxOperator> table = [] {
    std::vector<OnnxOperator> by_kind(kNumOpKinds);
    const std::pair<OpKind, OnnxOperator> one_node[] = {
        {OpKind::EwAdd, {"", "Add"}},
        {OpKind::Add, {"", "Add"}},
        {OpKind::EwMul, {"", "Mul"}},
        {OpKind::Mul, {"", "Mul"}},
        {OpKind::Sub, {"", "Sub"}},
        {OpKind::Div, {"", "Div"}},
        {OpKind::Pow, {"", "Pow"}},
        {OpKind::Relu, {"", "Relu"}},
        {OpKind::Tanh, {"", "Tanh"}},
        {OpKind::Sigmoid, {"", "Sigmoid"}},
        {OpKind::Sqrt, {"", "Sqrt"}},
        {OpKind::Erf, {"", "Erf"}},
        {OpKind::Exp, {"", "Exp"}},
        {OpKind::BiasGelu, {"com.microsoft", "BiasGelu"}},
        {OpKind::FastGelu, {"com.microsoft", "FastGelu"}},
    };
    for (const auto& [op, onnx] : one_node) by_kind[static_cast<size_t>(op)] = onnx;
    return by_kind;
  }();
  return table.at(static_cast<size_t>(kind));
}

}  // namespace saturate::ir
