// The oneDNN executor: compiles a graph into a list of steps (oneDNN primitives with their
// memory bound once, native copies, reference-kernel fallbacks) over float32 buffers allocated
// once, then replays the list on each execution.
#include "runtime/onednn_executor.h"

#include <omp.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "ir/axes.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "ir/weight_only.h"
#include "runtime/interpreter.h"
#include "support/error.h"

namespace saturate::runtime {
namespace {

using dnnl::memory;
using ir::OpKind;
using Buffer = std::shared_ptr<std::vector<float>>;
using Step = std::function<void()>;

// oneDNN's limit on tensor rank (DNNL_MAX_NDIMS).
constexpr size_t kMaxRank = DNNL_MAX_NDIMS;

std::string describe(const ir::Node& node) {
  return "node '" + node.name() + "' (" + std::string(ir::to_string(node.op)) + ")";
}

// oneDNN has no rank-0 tensors: a scalar is a one-element vector.
memory::dims as_dims(const ir::Dims& dims) {
  return dims.empty() ? memory::dims{1} : memory::dims(dims.begin(), dims.end());
}

int64_t product(const ir::Dims& dims, size_t begin, size_t end) {
  int64_t result = 1;
  for (size_t i = begin; i < end; ++i) result *= dims[i];
  return result;
}

memory::desc plain_desc(const ir::Dims& dims) {
  memory::dims shape = as_dims(dims);
  return memory::desc(shape, memory::data_type::f32, ir::row_major_strides(shape));
}

memory::desc any_desc(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
}

// Right-aligns `dims` to `rank` by prepending 1s (numpy broadcasting).
ir::Dims with_rank(const ir::Dims& dims, size_t rank) {
  ir::Dims result(rank - std::min(rank, dims.size()), 1);
  result.insert(result.end(), dims.begin(), dims.end());
  return result;
}

bool commutative(OpKind op) {
  return op == OpKind::EwAdd || op == OpKind::EwMul || op == OpKind::Add || op == OpKind::Mul;
}

std::optional<dnnl::algorithm> binary_algorithm(OpKind op) {
  switch (op) {
    case OpKind::EwAdd:
    case OpKind::Add:
      return dnnl::algorithm::binary_add;
    case OpKind::EwMul:
    case OpKind::Mul:
      return dnnl::algorithm::binary_mul;
    case OpKind::Sub:
      return dnnl::algorithm::binary_sub;
    case OpKind::Div:
      return dnnl::algorithm::binary_div;
    default:
      return std::nullopt;
  }
}

// oneDNN's binary primitive broadcasts its second source only: the first must have the output's
// shape. Returns the operand order (first, second) that satisfies that, if any.
std::optional<std::pair<int, int>> binary_operand_order(OpKind op, const ir::Dims& a,
                                                        const ir::Dims& b, const ir::Dims& out) {
  if (with_rank(a, out.size()) == out) return std::pair{0, 1};
  if (commutative(op) && with_rank(b, out.size()) == out) return std::pair{1, 0};
  return std::nullopt;
}

struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha = 0;
  float beta = 0;
};

std::optional<Eltwise> eltwise_of(OpKind op, const ir::Attributes& attrs) {
  switch (op) {
    case OpKind::Relu:
      return Eltwise{dnnl::algorithm::eltwise_relu};
    case OpKind::Tanh:
      return Eltwise{dnnl::algorithm::eltwise_tanh};
    case OpKind::Sigmoid:
      return Eltwise{dnnl::algorithm::eltwise_logistic};
    case OpKind::Sqrt:
      return Eltwise{dnnl::algorithm::eltwise_sqrt};
    case OpKind::Exp:
      return Eltwise{dnnl::algorithm::eltwise_exp};
    case OpKind::Gelu:
      return Eltwise{dnnl::algorithm::eltwise_gelu_erf};
    case OpKind::Clip:
      return Eltwise{dnnl::algorithm::eltwise_clip, static_cast<float>(attrs.get_float("min")),
                     static_cast<float>(attrs.get_float("max"))};
    case OpKind::LeakyRelu:
      return Eltwise{dnnl::algorithm::eltwise_relu, static_cast<float>(attrs.get_float("alpha"))};
    default:
      return std::nullopt;
  }
}

std::optional<Eltwise> activation_of(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::None:
      return std::nullopt;
    case ir::Activation::Relu:
      return Eltwise{dnnl::algorithm::eltwise_relu};
    case ir::Activation::Sigmoid:
      return Eltwise{dnnl::algorithm::eltwise_logistic};
    case ir::Activation::Tanh:
      return Eltwise{dnnl::algorithm::eltwise_tanh};
    case ir::Activation::Clip:
    case ir::Activation::LeakyRelu:
    case ir::Activation::HardSigmoid:
      // The registry gives activations with parameters to fused_conv only, which has no
      // oneDNN lowering.
      break;
  }
  throw Error("no oneDNN post-op for the fused activation " +
              std::string(ir::to_string(activation)));
}

// Padding before and after along one window axis, as the IR defines it (SAME puts the odd
// extra element at the end).
std::pair<int64_t, int64_t> window_padding(int64_t size, int64_t out, int64_t kernel,
                                           int64_t stride, ir::Padding padding) {
  if (padding == ir::Padding::Valid) return {0, 0};
  const int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
  return {total / 2, total - total / 2};
}

bool fits_rank(const std::vector<ir::TensorType>& types) {
  return std::all_of(types.begin(), types.end(),
                     [](const ir::TensorType& t) { return t.dims.size() <= kMaxRank; });
}

}  // namespace

int onednn_thread_count(int requested) {
  return requested > 0 ? requested : omp_get_max_threads();
}

std::string onednn_version() {
  const dnnl_version_t* version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch);
}

bool OnednnExecutor::runs_natively(ir::OpKind op, const ir::Attributes& attrs,
                                   const std::vector<ir::TensorType>& inputs,
                                   const std::vector<ir::TensorType>& outputs) {
  // Symbolic dims (ir/symbolic_dim.h) are handles, not sizes: nothing runs them.
  const auto f32 = [](const ir::TensorType& t) {
    return t.dtype == ir::DType::F32 && !ir::has_symbolic(t.dims);
  };
  if (!std::all_of(inputs.begin(), inputs.end(), f32) ||
      !std::all_of(outputs.begin(), outputs.end(), f32) || outputs.empty()) {
    return false;
  }
  switch (op) {
    case OpKind::Split:
    case OpKind::Reshape:
    case OpKind::Noop:
      return true;
    case OpKind::Conv2d:
    case OpKind::MatMul:
    case OpKind::PoolMax:
    case OpKind::PoolAvg:
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Sqrt:
    case OpKind::Exp:
    case OpKind::Gelu:
    case OpKind::Clip:
    case OpKind::Transpose:
    case OpKind::Concat:
    case OpKind::Softmax:
    case OpKind::LayerNorm:
    case OpKind::BatchNorm:
    case OpKind::ReduceMean:
      return fits_rank(inputs) && fits_rank(outputs);
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Div:
      return fits_rank(outputs) && inputs.size() == 2 &&
             binary_operand_order(op, inputs[0].dims, inputs[1].dims, outputs[0].dims).has_value();
    default:
      // Pow, Erf, Attention, Enlarge, Merge and operators added later: reference kernels.
      (void)attrs;
      return false;
  }
}

struct OnednnExecutor::Plan {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  int threads = 0;
  std::vector<std::vector<Buffer>> values;  // [node][output]
  struct Leaf {
    std::string name;
    ir::Dims dims;
    Buffer buffer;
  };
  std::vector<Leaf> inputs;
  struct Output {
    std::string name;
    ir::Dims dims;
    Buffer buffer;
  };
  std::vector<Output> outputs;
  std::vector<Step> steps;
  OnednnPlanStats stats;

  void use_threads() const {
    if (threads > 0) omp_set_num_threads(threads);
  }

  Buffer allocate(const ir::Dims& dims) {
    const int64_t count = product(dims, 0, dims.size());
    stats.buffer_bytes += static_cast<size_t>(count) * sizeof(float);
    return std::make_shared<std::vector<float>>(static_cast<size_t>(count), 0.0f);
  }

  memory wrap(const memory::desc& desc, const Buffer& buffer) {
    return memory(desc, engine, buffer->data());
  }
};

namespace {

// Steps and outputs of one operator, committed to the plan only once all of it was built (a
// oneDNN error halfway leaves the plan untouched and the operator falls back).
struct NodeBuild {
  std::vector<Buffer> outputs;
  std::vector<Step> steps;
  size_t primitives = 0;
  size_t reorders = 0;
  size_t native_copies = 0;
};

class NodeBuilder {
 public:
  using Plan = OnednnExecutor::Plan;

  NodeBuilder(Plan& plan, const ir::Graph& graph, const std::vector<bool>& known, ir::NodeId id)
      : plan_(plan), graph_(graph), known_(known), node_(graph.node(id)) {}

  NodeBuild build() {
    const ir::Attributes& attrs = node_.attrs;
    switch (node_.op) {
      case OpKind::Conv2d:
        conv2d();
        break;
      case OpKind::MatMul:
        matmul();
        break;
      case OpKind::PoolMax:
      case OpKind::PoolAvg:
        pool();
        break;
      case OpKind::Transpose:
        transpose();
        break;
      case OpKind::Concat:
        concat();
        break;
      case OpKind::Split:
        split();
        break;
      case OpKind::Reshape:
      case OpKind::Noop:
        // Same elements in the same order: the output is the input's buffer.
        result_.outputs.push_back(input_buffer(0));
        ++result_.native_copies;
        break;
      case OpKind::Softmax:
        softmax();
        break;
      case OpKind::LayerNorm:
        layernorm();
        break;
      case OpKind::BatchNorm:
        batchnorm();
        break;
      case OpKind::ReduceMean:
        reduce_mean();
        break;
      default:
        if (auto eltwise = eltwise_of(node_.op, attrs)) {
          unary(*eltwise);
        } else if (binary_algorithm(node_.op)) {
          binary();
        } else {
          throw Error(describe(node_) + ": no oneDNN lowering");
        }
    }
    return std::move(result_);
  }

 private:
  const ir::TensorType& input_type(size_t i) const { return graph_.type(node_.inputs[i]); }
  const Buffer& input_buffer(size_t i) const {
    const ir::ValueRef& ref = node_.inputs[i];
    return plan_.values[ref.node][ref.output];
  }
  bool input_known(size_t i) const { return known_[node_.inputs[i].node]; }
  const ir::Dims& out_dims() const { return node_.outputs.front().dims; }

  Buffer new_output() {
    Buffer buffer = plan_.allocate(out_dims());
    result_.outputs.push_back(buffer);
    return buffer;
  }

  void add_primitive(dnnl::primitive primitive, std::unordered_map<int, memory> args,
                     bool reorder = false) {
    Plan* plan = &plan_;
    result_.steps.push_back([plan, primitive = std::move(primitive), args = std::move(args)] {
      primitive.execute(plan->stream, args);
    });
    ++result_.primitives;
    if (reorder) ++result_.reorders;
  }

  void add_reorder(const memory& from, const memory& to) {
    add_primitive(dnnl::reorder(from, to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, true);
  }

  // Input `i` (stored plainly with `plain` as its layout) in the layout a primitive chose. A
  // compile-time-known input is converted once, now; others at every execution.
  memory input_in(size_t i, const memory::desc& plain, const memory::desc& wanted) {
    memory source = plan_.wrap(plain, input_buffer(i));
    if (wanted == plain) return source;
    memory converted(wanted, plan_.engine);
    if (input_known(i)) {
      dnnl::reorder(source, converted).execute(plan_.stream, source, converted);
      plan_.stream.wait();
    } else {
      add_reorder(source, converted);
    }
    return converted;
  }

  // Where a primitive writes: the plain output buffer, or a temporary in the chosen layout that
  // `finish_output` reorders into it.
  memory output_in(const memory::desc& wanted, const Buffer& buffer) {
    memory::desc plain = plain_desc(out_dims());
    if (wanted == plain) return plan_.wrap(plain, buffer);
    return memory(wanted, plan_.engine);
  }
  void finish_output(const memory& written, const Buffer& buffer) {
    memory::desc plain = plain_desc(out_dims());
    if (written.get_desc() == plain) return;
    add_reorder(written, plan_.wrap(plain, buffer));
  }

  static dnnl::primitive_attr with_activation(ir::Activation activation) {
    dnnl::primitive_attr attr;
    if (auto eltwise = activation_of(activation)) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, eltwise->algorithm, eltwise->alpha, eltwise->beta);
      attr.set_post_ops(ops);
    }
    return attr;
  }

  void conv2d() {
    const ir::Dims& x = input_type(0).dims;
    const ir::Dims& w = input_type(1).dims;
    const ir::Dims& out = out_dims();
    const int64_t groups = x[1] / w[1];
    const memory::dims weight_dims = groups == 1
                                         ? memory::dims(w.begin(), w.end())
                                         : memory::dims{groups, w[0] / groups, w[1], w[2], w[3]};
    const int64_t stride_h = node_.attrs.get_int("stride_h");
    const int64_t stride_w = node_.attrs.get_int("stride_w");
    const ir::Padding padding = node_.attrs.get_padding();
    auto [top, bottom] = window_padding(x[2], out[2], w[2], stride_h, padding);
    auto [left, right] = window_padding(x[3], out[3], w[3], stride_w, padding);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, any_desc(as_dims(x)),
                                         any_desc(weight_dims), any_desc(as_dims(out)),
                                         {stride_h, stride_w}, {top, left}, {bottom, right});
    dnnl::convolution_forward::primitive_desc pd(
        desc, with_activation(node_.attrs.get_activation()), plan_.engine);
    memory src = input_in(0, plain_desc(x), pd.src_desc());
    memory weights = input_in(1, plain_desc(weight_dims), pd.weights_desc());
    Buffer buffer = new_output();
    memory dst = output_in(pd.dst_desc(), buffer);
    add_primitive(dnnl::convolution_forward(pd),
                  {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    finish_output(dst, buffer);
  }

  void matmul() {
    const ir::Dims& out = out_dims();
    const memory::desc a = plain_desc(with_rank(input_type(0).dims, out.size()));
    const memory::desc b = plain_desc(with_rank(input_type(1).dims, out.size()));
    dnnl::matmul::desc desc(a, b, plain_desc(out));
    dnnl::matmul::primitive_desc pd(desc, with_activation(node_.attrs.get_activation()),
                                    plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::matmul(pd), {{DNNL_ARG_SRC, plan_.wrap(a, input_buffer(0))},
                                     {DNNL_ARG_WEIGHTS, plan_.wrap(b, input_buffer(1))},
                                     {DNNL_ARG_DST, plan_.wrap(plain_desc(out), buffer)}});
  }

  void pool() {
    const ir::Dims& x = input_type(0).dims;
    const ir::Dims& out = out_dims();
    const ir::Attributes& attrs = node_.attrs;
    const int64_t kernel_h = attrs.get_int("kernel_h");
    const int64_t kernel_w = attrs.get_int("kernel_w");
    const int64_t stride_h = attrs.get_int("stride_h");
    const int64_t stride_w = attrs.get_int("stride_w");
    auto [top, bottom] = window_padding(x[2], out[2], kernel_h, stride_h, attrs.get_padding());
    auto [left, right] = window_padding(x[3], out[3], kernel_w, stride_w, attrs.get_padding());
    // Max pooling never picks padding; average pooling divides by the in-bounds count.
    const dnnl::algorithm algorithm = node_.op == OpKind::PoolMax
                                          ? dnnl::algorithm::pooling_max
                                          : dnnl::algorithm::pooling_avg_exclude_padding;
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, plain_desc(x),
                                     plain_desc(out), {stride_h, stride_w}, {kernel_h, kernel_w},
                                     {top, left}, {bottom, right});
    dnnl::pooling_forward::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    memory dst = plan_.wrap(plain_desc(out), buffer);
    add_primitive(
        dnnl::pooling_forward(pd),
        {{DNNL_ARG_SRC, plan_.wrap(plain_desc(x), input_buffer(0))}, {DNNL_ARG_DST, dst}});
    if (auto activation = activation_of(attrs.get_activation())) {
      add_eltwise_in_place(*activation, dst);
    }
  }

  void add_eltwise_in_place(const Eltwise& eltwise, const memory& data) {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, eltwise.algorithm,
                                     data.get_desc(), eltwise.alpha, eltwise.beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, plan_.engine);
    add_primitive(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}});
  }

  void unary(const Eltwise& eltwise) {
    const memory::desc plain = plain_desc(out_dims());
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, eltwise.algorithm, plain,
                                     eltwise.alpha, eltwise.beta);
    dnnl::eltwise_forward::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, plan_.wrap(plain, input_buffer(0))},
                                              {DNNL_ARG_DST, plan_.wrap(plain, buffer)}});
  }

  void binary() {
    const ir::Dims& out = out_dims();
    auto order = binary_operand_order(node_.op, input_type(0).dims, input_type(1).dims, out);
    if (!order) throw Error(describe(node_) + ": the first operand would need broadcasting");
    const auto [first, second] = *order;
    const memory::desc src0 = plain_desc(with_rank(input_type(first).dims, out.size()));
    const memory::desc src1 = plain_desc(with_rank(input_type(second).dims, out.size()));
    dnnl::binary::desc desc(*binary_algorithm(node_.op), src0, src1, plain_desc(out));
    dnnl::binary::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::binary(pd), {{DNNL_ARG_SRC_0, plan_.wrap(src0, input_buffer(first))},
                                     {DNNL_ARG_SRC_1, plan_.wrap(src1, input_buffer(second))},
                                     {DNNL_ARG_DST, plan_.wrap(plain_desc(out), buffer)}});
  }

  void transpose() {
    const ir::Dims& x = input_type(0).dims;
    const std::vector<int64_t>& perm = node_.attrs.get_ints("perm");
    if (x.empty()) {
      result_.outputs.push_back(input_buffer(0));
      ++result_.native_copies;
      return;
    }
    // The input read through permuted strides is the output's logical tensor; a reorder writes
    // it out densely.
    const std::vector<int64_t> strides = ir::row_major_strides(as_dims(x));
    memory::dims permuted_strides;
    for (int64_t axis : perm) permuted_strides.push_back(strides[static_cast<size_t>(axis)]);
    memory::desc source(as_dims(out_dims()), memory::data_type::f32, permuted_strides);
    Buffer buffer = new_output();
    add_reorder(plan_.wrap(source, input_buffer(0)), plan_.wrap(plain_desc(out_dims()), buffer));
  }

  void concat() {
    const int rank = static_cast<int>(out_dims().size());
    int64_t axis = node_.attrs.get_int("axis");
    if (axis < 0) axis += rank;
    std::vector<memory::desc> sources;
    std::unordered_map<int, memory> args;
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
      sources.push_back(plain_desc(input_type(i).dims));
      args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i),
                   plan_.wrap(sources.back(), input_buffer(i)));
    }
    dnnl::concat::primitive_desc pd(plain_desc(out_dims()), static_cast<int>(axis), sources,
                                    plan_.engine);
    Buffer buffer = new_output();
    args.emplace(DNNL_ARG_DST, plan_.wrap(plain_desc(out_dims()), buffer));
    add_primitive(dnnl::concat(pd), std::move(args));
  }

  void split() {
    const ir::Dims& x = input_type(0).dims;
    const int rank = static_cast<int>(x.size());
    int64_t axis = node_.attrs.get_int("axis");
    if (axis < 0) axis += rank;
    const size_t a = static_cast<size_t>(axis);
    const int64_t outer = product(x, 0, a);
    const int64_t inner = product(x, a + 1, x.size());
    const int64_t row = x[a] * inner;
    Buffer source = input_buffer(0);
    int64_t offset = 0;
    for (size_t k = 0; k < node_.outputs.size(); ++k) {
      const int64_t part = node_.outputs[k].dims[a] * inner;
      Buffer buffer = plan_.allocate(node_.outputs[k].dims);
      result_.outputs.push_back(buffer);
      Plan* plan = &plan_;
      result_.steps.push_back([plan, source, buffer, outer, row, part, offset] {
        plan->stream.wait();
        const float* from = source->data() + offset;
        float* to = buffer->data();
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(to + o * part, from + o * row, static_cast<size_t>(part) * sizeof(float));
        }
      });
      ++result_.native_copies;
      offset += part;
    }
  }

  void softmax() {
    const int rank = static_cast<int>(out_dims().size());
    int64_t axis = node_.attrs.get_int("axis");
    if (axis < 0) axis += rank;
    if (rank == 0) axis = 0;
    const memory::desc plain = plain_desc(out_dims());
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, plain,
                                     static_cast<int>(axis));
    dnnl::softmax_forward::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, plan_.wrap(plain, input_buffer(0))},
                                              {DNNL_ARG_DST, plan_.wrap(plain, buffer)}});
  }

  void layernorm() {
    const ir::Dims& x = out_dims();
    const int rank = static_cast<int>(x.size());
    int64_t axis = node_.attrs.get_int("axis");
    if (axis < 0) axis += rank;
    // Normalizing over axes [axis, rank) is normalizing the rows of a 2-D view.
    const int64_t outer = product(x, 0, static_cast<size_t>(axis));
    const int64_t inner = product(x, static_cast<size_t>(axis), x.size());
    const memory::desc data = plain_desc({outer, inner});
    const memory::desc parameters = plain_desc({inner});
    dnnl::layer_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, data,
        static_cast<float>(node_.attrs.get_float("epsilon")),
        dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, plan_.wrap(data, input_buffer(0))},
        {DNNL_ARG_DST, plan_.wrap(data, buffer)},
        {DNNL_ARG_SCALE, plan_.wrap(parameters, input_buffer(1))},
        {DNNL_ARG_SHIFT, plan_.wrap(parameters, input_buffer(2))}};
    if (pd.mean_desc().get_size() != 0) {
      args.emplace(DNNL_ARG_MEAN, memory(pd.mean_desc(), plan_.engine));
      args.emplace(DNNL_ARG_VARIANCE, memory(pd.variance_desc(), plan_.engine));
    }
    add_primitive(dnnl::layer_normalization_forward(pd), std::move(args));
  }

  void batchnorm() {
    const ir::Dims& x = out_dims();
    // oneDNN takes 2-D to 5-D data with channels on axis 1; fold any further axes together.
    const ir::Dims shape = x.size() <= 5 ? x : ir::Dims{x[0], x[1], product(x, 2, x.size())};
    const memory::desc data = plain_desc(shape);
    const memory::desc parameters = plain_desc({x[1]});
    dnnl::batch_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, data,
        static_cast<float>(node_.attrs.get_float("epsilon")),
        dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
            dnnl::normalization_flags::use_shift);
    dnnl::batch_normalization_forward::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::batch_normalization_forward(pd),
                  {{DNNL_ARG_SRC, plan_.wrap(data, input_buffer(0))},
                   {DNNL_ARG_DST, plan_.wrap(data, buffer)},
                   {DNNL_ARG_SCALE, plan_.wrap(parameters, input_buffer(1))},
                   {DNNL_ARG_SHIFT, plan_.wrap(parameters, input_buffer(2))},
                   {DNNL_ARG_MEAN, plan_.wrap(parameters, input_buffer(3))},
                   {DNNL_ARG_VARIANCE, plan_.wrap(parameters, input_buffer(4))}});
  }

  void reduce_mean() {
    const ir::Dims& x = input_type(0).dims;
    // The output with reduced axes kept as 1s has the same elements in the same order.
    ir::Dims kept = x;
    for (int64_t axis : node_.attrs.get_ints("axes")) {
      kept[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(x.size()) : axis)] = 1;
    }
    dnnl::reduction::desc desc(dnnl::algorithm::reduction_mean, plain_desc(x), plain_desc(kept),
                               0.0f, 0.0f);
    dnnl::reduction::primitive_desc pd(desc, plan_.engine);
    Buffer buffer = new_output();
    add_primitive(dnnl::reduction(pd), {{DNNL_ARG_SRC, plan_.wrap(plain_desc(x), input_buffer(0))},
                                        {DNNL_ARG_DST, plan_.wrap(plain_desc(kept), buffer)}});
  }

  Plan& plan_;
  const ir::Graph& graph_;
  const std::vector<bool>& known_;
  const ir::Node& node_;
  NodeBuild result_;
};

Tensor to_tensor(const ir::Dims& dims, const std::vector<float>& values) {
  return Tensor(dims, std::vector<double>(values.begin(), values.end()));
}

void store(const Tensor& tensor, std::vector<float>& buffer) {
  std::transform(tensor.data.begin(), tensor.data.end(), buffer.begin(),
                 [](double v) { return static_cast<float>(v); });
}

// Runs a node with the reference interpreter's kernel on the current buffer contents.
void evaluate_with_reference(const ir::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<ir::Dims>& input_dims,
                             const std::vector<Buffer>& outputs) {
  std::vector<Tensor> tensors;
  tensors.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    tensors.push_back(to_tensor(input_dims[i], *inputs[i]));
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : tensors) pointers.push_back(&t);
  std::vector<Tensor> results = Interpreter(Precision::F32).evaluate(node, pointers);
  for (size_t k = 0; k < outputs.size(); ++k) store(results[k], *outputs[k]);
}

}  // namespace

OnednnExecutor::OnednnExecutor(const ir::Graph& graph, const TensorMap& weights,
                               OnednnOptions options)
    : plan_(std::make_unique<Plan>()) {
  // Buffers are allocated from the dims: a symbolic one is a handle, not a size.
  require_static_graph(graph, "the oneDNN executor");
  Plan& plan = *plan_;
  plan.threads = options.threads;
  plan.use_threads();
  const std::vector<bool> known = ir::weight_only_nodes(graph);
  // Operators no output depends on are not compiled.
  std::vector<bool> needed(graph.num_nodes(), false);
  for (const ir::GraphOutput& output : graph.outputs()) needed[output.value.node] = true;
  for (size_t id = graph.num_nodes(); id-- > 0;) {
    if (!needed[id]) continue;
    for (const ir::ValueRef& ref : graph.node(static_cast<ir::NodeId>(id)).inputs) {
      needed[ref.node] = true;
    }
  }

  plan.values.resize(graph.num_nodes());
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (node.op == OpKind::Opaque) {
      throw Error(describe(node) +
                  " is an operator Saturate does not know (imported as opaque): the oneDNN "
                  "executor cannot run this graph");
    }
    for (const ir::TensorType& type : node.outputs) {
      if (type.dtype != ir::DType::F32) {
        throw Error(describe(node) + " produces " + ir::to_string(type) +
                    ": the oneDNN executor runs float32 graphs only");
      }
    }
    if (node.op == OpKind::Input) {
      Buffer buffer = plan.allocate(node.outputs.front().dims);
      plan.values[id].push_back(buffer);
      plan.inputs.push_back({node.name(), node.outputs.front().dims, buffer});
      continue;
    }
    if (node.op == OpKind::Weight) {
      auto it = weights.find(node.name());
      const ir::Dims& dims = node.outputs.front().dims;
      if (it == weights.end()) {
        throw Error("no value for weight '" + node.name() + "' of shape " + ir::to_string(dims) +
                    " (random_feeds can make one)");
      }
      if (it->second.dims != dims) {
        throw Error("the value for weight '" + node.name() + "' has shape " +
                    ir::to_string(it->second.dims) + " but the graph declares " +
                    ir::to_string(dims));
      }
      Buffer buffer = plan.allocate(dims);
      store(it->second, *buffer);
      plan.values[id].push_back(buffer);
      continue;
    }
    if (node.op == OpKind::Constant) {
      Buffer buffer = plan.allocate(node.outputs.front().dims);
      std::fill(buffer->begin(), buffer->end(), static_cast<float>(node.attrs.get_float("value")));
      plan.values[id].push_back(buffer);
      continue;
    }
    if (!needed[id]) continue;

    std::vector<Buffer> input_buffers;
    std::vector<ir::Dims> input_dims;
    std::vector<ir::TensorType> input_types;
    for (const ir::ValueRef& ref : node.inputs) {
      input_buffers.push_back(plan.values[ref.node][ref.output]);
      input_dims.push_back(graph.type(ref).dims);
      input_types.push_back(graph.type(ref));
    }
    auto allocate_outputs = [&] {
      std::vector<Buffer> outputs;
      for (const ir::TensorType& type : node.outputs) outputs.push_back(plan.allocate(type.dims));
      return outputs;
    };

    if (known[id]) {
      // TASO's weight preprocessing: computed once, here, from weights and constants only.
      std::vector<Buffer> outputs = allocate_outputs();
      evaluate_with_reference(node, input_buffers, input_dims, outputs);
      plan.values[id] = std::move(outputs);
      ++plan.stats.folded;
      continue;
    }

    if (runs_natively(node.op, node.attrs, input_types, node.outputs)) {
      std::optional<NodeBuild> built;
      try {
        built = NodeBuilder(plan, graph, known, id).build();
      } catch (const dnnl::error&) {
        // oneDNN rejected this configuration (an unsupported broadcast, say): reference kernel.
      }
      if (built) {
        plan.values[id] = std::move(built->outputs);
        for (Step& step : built->steps) plan.steps.push_back(std::move(step));
        plan.stats.primitives += built->primitives;
        plan.stats.reorders += built->reorders;
        plan.stats.native_copies += built->native_copies;
        continue;
      }
    }

    std::vector<Buffer> outputs = allocate_outputs();
    plan.values[id] = outputs;
    Plan* plan_pointer = &plan;
    plan.steps.push_back([plan_pointer, node, input_buffers, input_dims, outputs] {
      plan_pointer->stream.wait();
      evaluate_with_reference(node, input_buffers, input_dims, outputs);
    });
    ++plan.stats.fallbacks;
  }

  for (const ir::GraphOutput& output : graph.outputs()) {
    plan.outputs.push_back({output.name, graph.type(output.value).dims,
                            plan.values[output.value.node][output.value.output]});
  }
}

OnednnExecutor::~OnednnExecutor() = default;
OnednnExecutor::OnednnExecutor(OnednnExecutor&&) noexcept = default;
OnednnExecutor& OnednnExecutor::operator=(OnednnExecutor&&) noexcept = default;

void OnednnExecutor::set_inputs(const TensorMap& feeds) {
  for (Plan::Leaf& input : plan_->inputs) {
    auto it = feeds.find(input.name);
    if (it == feeds.end()) {
      throw Error("no feed for input '" + input.name + "' of shape " + ir::to_string(input.dims) +
                  " (random_feeds can make one)");
    }
    if (it->second.dims != input.dims ||
        it->second.data.size() != static_cast<size_t>(product(input.dims, 0, input.dims.size()))) {
      throw Error("the feed for input '" + input.name + "' has shape " +
                  ir::to_string(it->second.dims) + " but the graph declares " +
                  ir::to_string(input.dims));
    }
    store(it->second, *input.buffer);
  }
}

namespace {

// Flush-to-zero and denormals-are-zero (MXCSR bits 15 and 6) while a graph runs, on the calling
// thread and on OpenMP's: as inference runtimes do. Without them a deep model whose values decay
// (VGG-19 on random weights) runs up to 1.5x slower depending on the weights drawn, which made
// two runs of the same graph look like a slowdown.
class FlushDenormals {
 public:
  FlushDenormals() {
#if defined(__SSE2__)
    saved_ = _mm_getcsr();
    constexpr unsigned kFlushBits = 0x8040;
    _mm_setcsr(saved_ | kFlushBits);
#pragma omp parallel
    _mm_setcsr(_mm_getcsr() | kFlushBits);
#endif
  }
  ~FlushDenormals() {
#if defined(__SSE2__)
    _mm_setcsr(saved_);  // the caller's own arithmetic keeps its semantics
#endif
  }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace

void OnednnExecutor::execute() {
  plan_->use_threads();
  FlushDenormals flush;
  for (const Step& step : plan_->steps) step();
  plan_->stream.wait();
}

TensorMap OnednnExecutor::outputs() const {
  plan_->stream.wait();
  TensorMap results;
  for (const Plan::Output& output : plan_->outputs) {
    results.insert_or_assign(output.name, to_tensor(output.dims, *output.buffer));
  }
  return results;
}

TensorMap OnednnExecutor::run(const TensorMap& feeds) {
  set_inputs(feeds);
  execute();
  return outputs();
}

std::vector<double> OnednnExecutor::time_runs(int warmup, int runs) {
  for (int i = 0; i < warmup; ++i) execute();
  std::vector<double> milliseconds;
  milliseconds.reserve(static_cast<size_t>(std::max(runs, 0)));
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    execute();
    milliseconds.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  return milliseconds;
}

const OnednnPlanStats& OnednnExecutor::stats() const {
  return plan_->stats;
}

}  // namespace saturate::runtime
