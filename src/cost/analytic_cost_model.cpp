// The roofline model: each operator's flops and bytes, priced against MachineParameters.
// docs/COST_MODEL.md explains every constant here.
#include "cost/analytic_cost_model.h"

#include "ir/op_registry.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cost {
namespace {

using ir::OpKind;
using ir::TensorType;

// Flops per element of each scalar function, counted as the vectorized kernels compute them
// (a polynomial or rational approximation, Horner steps as FMAs = 2 flops each). Division and
// square root count as 4: one vdivps / vsqrtps issues every 4-8 cycles where an FMA issues twice
// per cycle, so they occupy the vector unit about four times as long.
constexpr double kSimpleFlops = 1;  // add, sub, mul, max
constexpr double kDivFlops = 4;     // divide
constexpr double kSqrtFlops = 4;    // square root
constexpr double kExpFlops = 10;    // range reduction + degree-5 polynomial + exponent scaling
constexpr double kLogFlops = 10;    // mantissa/exponent split + polynomial
constexpr double kSigmoidFlops = kExpFlops + kSimpleFlops + kDivFlops;   // 1 / (1 + e^-x)
constexpr double kTanhFlops = kExpFlops + 2 * kSimpleFlops + kDivFlops;  // via e^2x
constexpr double kErfFlops = 20;  // rational approximation: two degree-~6 polynomials + divide
constexpr double kGeluFlops = kErfFlops + 4 * kSimpleFlops;   // x * (1 + erf(x / sqrt 2)) / 2
constexpr double kBiasGeluFlops = kSimpleFlops + kGeluFlops;  // the bias add, then gelu
// x * (1 + tanh(c * (x + 0.044715 x^3))) / 2: cube, FMA, scale, tanh, add, two multiplies.
constexpr double kFastGeluFlops = kTanhFlops + 6 * kSimpleFlops;
constexpr double kQuickGeluFlops = kSigmoidFlops + 2 * kSimpleFlops;  // x * sigmoid(alpha * x)
constexpr double kPowFlops = kLogFlops + kSimpleFlops + kExpFlops;    // exp(b * log a)
constexpr double kClipFlops = 2 * kSimpleFlops;                       // max then min
constexpr double kLeakyReluFlops = 2 * kSimpleFlops;                  // compare, scale
constexpr double kHardSigmoidFlops = 4 * kSimpleFlops;                // scale, shift, clamp
// Softmax per element: running max, subtract, exp, accumulate, multiply by 1 / sum.
constexpr double kSoftmaxFlops = kExpFlops + 4 * kSimpleFlops;
// Layer norm per element: accumulate mean, subtract, square-accumulate, multiply by the row's
// 1 / sqrt(var + eps), scale, shift. The per-row sqrt and divide are negligible.
constexpr double kLayerNormFlops = 7;
// RMS norm per element: square-accumulate, multiply by the row's 1 / rms, scale.
constexpr double kRMSNormFlops = 4;
// Inference batch norm folds into y = a[c] * x + b[c]: one FMA per element, and per channel
// a = scale / sqrt(var + eps), b = bias - mean * a.
constexpr double kBatchNormFlops = 2;
constexpr double kBatchNormChannelFlops = kSimpleFlops + kSqrtFlops + kDivFlops + 2;

double element_bytes(ir::DType dtype) {
  return ir::element_size(dtype);
}

double elements(const TensorType& type) {
  return static_cast<double>(type.num_elements());
}

double bytes_of(const TensorType& type) {
  return elements(type) * element_bytes(type.dtype);
}

double bytes_of(const std::vector<TensorType>& types) {
  double total = 0;
  for (const auto& type : types) total += bytes_of(type);
  return total;
}

// Flops per output element of a fused activation: the same function as the standalone operator.
double activation_flops(ir::Activation activation) {
  switch (activation) {
    case ir::Activation::None:
      return 0;
    case ir::Activation::Sigmoid:
      return kSigmoidFlops;
    case ir::Activation::Relu:
      return kSimpleFlops;
    case ir::Activation::Tanh:
      return kTanhFlops;
    case ir::Activation::Clip:
      return kClipFlops;
    case ir::Activation::LeakyRelu:
      return kLeakyReluFlops;
    case ir::Activation::HardSigmoid:
      return kHardSigmoidFlops;
  }
  return 0;
}

// Operators with a fixed flop count per output element and no other work.
double flops_per_element(OpKind op) {
  switch (op) {
    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Relu:
      return kSimpleFlops;
    case OpKind::Div:
      return kDivFlops;
    case OpKind::Pow:
      return kPowFlops;
    case OpKind::Sqrt:
      return kSqrtFlops;
    case OpKind::Exp:
      return kExpFlops;
    case OpKind::Erf:
      return kErfFlops;
    case OpKind::Gelu:
      return kGeluFlops;
    case OpKind::BiasGelu:
      return kBiasGeluFlops;
    case OpKind::FastGelu:
      return kFastGeluFlops;
    case OpKind::QuickGelu:
      return kQuickGeluFlops;
    case OpKind::Tanh:
      return kTanhFlops;
    case OpKind::Sigmoid:
      return kSigmoidFlops;
    case OpKind::Clip:
      return kClipFlops;
    case OpKind::LeakyRelu:
      return kLeakyReluFlops;
    case OpKind::HardSigmoid:
      return kHardSigmoidFlops;
    case OpKind::Softmax:
      return kSoftmaxFlops;
    case OpKind::LayerNorm:
      return kLayerNormFlops;
    case OpKind::RMSNorm:
      return kRMSNormFlops;
    // The residual add, then the normalization.
    case OpKind::SkipLayerNorm:
      return kSimpleFlops + kLayerNormFlops;
    case OpKind::SkipRMSNorm:
      return kSimpleFlops + kRMSNormFlops;
    default:
      return 0;
  }
}

}  // namespace

AnalyticCostModel::AnalyticCostModel(MachineParameters machine) : machine_(machine) {
  // Written as negations so that NaN fails too.
  if (!(machine_.peak_gflops > 0) || !(machine_.elementwise_gflops > 0) ||
      !(machine_.memory_gbytes_per_s > 0) || !(machine_.launch_overhead_ms >= 0)) {
    std::string given = "peak_gflops " + format_double(machine_.peak_gflops) +
                        ", elementwise_gflops " + format_double(machine_.elementwise_gflops) +
                        ", memory_gbytes_per_s " + format_double(machine_.memory_gbytes_per_s) +
                        ", launch_overhead_ms " + format_double(machine_.launch_overhead_ms);
    throw Error("analytic cost model: " + given +
                ": throughputs must be positive and the launch overhead non-negative");
  }
}

OpWork AnalyticCostModel::work(const OpConfig& config) {
  require_concrete_shapes(config, "the analytic model");
  const ir::OpInfo& info = ir::op_info(config.op);
  // Shapes are trusted (a Graph checks every node as it is added); the count check guards the
  // indexing below against a hand-built configuration.
  if (static_cast<int>(config.inputs.size()) < info.min_inputs || config.outputs.empty()) {
    throw Error("analytic cost model: " + info.name + " configuration has " +
                std::to_string(config.inputs.size()) + " inputs and " +
                std::to_string(config.outputs.size()) + " outputs");
  }
  const auto& in = config.inputs;
  const TensorType& out = config.outputs.front();
  // What every non-view operator moves: each input read once, each output written once.
  const double moved = bytes_of(in) + bytes_of(config.outputs);
  auto activation = [&] { return activation_flops(config.attrs.get_activation()) * elements(out); };

  switch (config.op) {
    case OpKind::Input:
    case OpKind::Weight:
    case OpKind::Constant:
    case OpKind::Noop:
    case OpKind::Reshape:  // a view of the same row-major buffer: nothing is computed or moved
    case OpKind::Split:    // views of the input, as TASO's split: consumers read them in place
      return {};

    case OpKind::MatMul: {
      double k = static_cast<double>(in[0].dims.back());
      return {2 * elements(out) * k + activation(), moved};
    }
    case OpKind::FusedMatMul: {
      // The transposes are read in place; the scale is one multiply per output element.
      const ir::Dims& a = in[0].dims;
      double k =
          static_cast<double>(config.attrs.get_int("trans_a") == 1 ? a[a.size() - 2] : a.back());
      return {(2 * k + kSimpleFlops) * elements(out), moved};
    }
    case OpKind::Conv2d:
    case OpKind::FusedConv: {
      // Weight dim 1 is Cin / groups; every output element is a dot product over it and the
      // kernel window (padded positions included, as usual for flop counts). The fused bias and
      // sum are one add each per output element.
      const auto& w = in[1].dims;
      double window = static_cast<double>(w[1] * w[2] * w[3]);
      double adds = config.op == OpKind::FusedConv ? static_cast<double>(in.size() - 2) : 0.0;
      return {(2 * window + adds * kSimpleFlops) * elements(out) + activation(), moved};
    }
    case OpKind::PoolMax:
    case OpKind::PoolAvg: {
      double window =
          static_cast<double>(config.attrs.get_int("kernel_h") * config.attrs.get_int("kernel_w"));
      // Max compares once per window element; average adds once and then scales.
      double per_output = window + (config.op == OpKind::PoolAvg ? kSimpleFlops : 0);
      return {per_output * elements(out) + activation(), moved};
    }

    case OpKind::EwAdd:
    case OpKind::EwMul:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Div:
    case OpKind::Pow:
    case OpKind::Relu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Sqrt:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Gelu:
    case OpKind::BiasGelu:
    case OpKind::FastGelu:
    case OpKind::QuickGelu:
    case OpKind::Clip:
    case OpKind::LeakyRelu:
    case OpKind::HardSigmoid:
    case OpKind::Softmax:
    case OpKind::LayerNorm:
    case OpKind::RMSNorm:
    case OpKind::SkipLayerNorm:
    case OpKind::SkipRMSNorm:
      return {flops_per_element(config.op) * elements(out), moved};
    case OpKind::BatchNorm:
      return {kBatchNormFlops * elements(out) +
                  kBatchNormChannelFlops * static_cast<double>(out.dims[1]),
              moved};
    case OpKind::ReduceMean:
      // One add per input element, one multiply by 1 / count per output element.
      return {elements(in[0]) + elements(out), moved};
    case OpKind::Attention: {
      // Two contractions plus the scaled softmax over the scores, which stay on chip: only
      // q, k, v and the output move (the point of fusing).
      double d = static_cast<double>(in[0].dims.back());
      double n = static_cast<double>(in[1].dims.back());
      double e = static_cast<double>(out.dims.back());
      double scores = elements(out) / e * n;
      return {2 * scores * d + (kSoftmaxFlops + kDivFlops) * scores + 2 * scores * e, moved};
    }
    case OpKind::MultiHeadAttention:
    case OpKind::QkvAttention: {
      // The same two contractions per head, scores kept on chip; QkvAttention first projects
      // its input into q, k and v (B, S, D each).
      const bool packed = config.op == OpKind::QkvAttention;
      double e = static_cast<double>(out.dims.back());
      double d = packed ? e : static_cast<double>(in[0].dims.back());  // the query's width
      double queries = static_cast<double>(in[0].dims[0] * in[0].dims[1]);
      // k is (B, L, D), or (B, N, L, H) split into heads.
      double keys = static_cast<double>(packed                   ? in[0].dims[1]
                                        : in[1].dims.size() == 4 ? in[1].dims[2]
                                                                 : in[1].dims[1]);
      double heads = static_cast<double>(config.attrs.get_int("num_heads"));
      double scores = queries * keys * heads;
      double projection = packed ? 2 * queries * static_cast<double>(in[0].dims[2]) *
                                       static_cast<double>(in[1].dims[1])
                                 : 0.0;
      return {projection + 2 * scores * (d / heads) + (kSoftmaxFlops + kDivFlops) * scores +
                  2 * scores * (e / heads),
              moved};
    }

    case OpKind::RotaryEmbedding:
      // Two multiplies and an add per element; the tables are read once per position.
      return {3 * kSimpleFlops * elements(out), moved};

    case OpKind::Transpose:
    case OpKind::Concat:
    case OpKind::Merge:
    case OpKind::Pad:
    case OpKind::Slice:
      return {0, moved};
    case OpKind::Opaque:
      // Unknown work: priced by the bytes it reads and writes, like a layout operator.
      return {0, moved};
    case OpKind::Enlarge:
      // Only the reference's shape matters; its data is never read.
      return {0, bytes_of(in[0]) + bytes_of(out)};
  }
  return {};
}

Roofline AnalyticCostModel::roofline(const OpConfig& config) const {
  // Sizes only: a symbolic dim is an interned handle, never multiplied here.
  require_concrete_shapes(config, "the analytic model");
  // A split launches nothing: its parts are views that consumers read in place (TASO prices it
  // at zero too, which is what makes merging operators that share an input pay off).
  if (ir::op_info(config.op).is_leaf() || config.op == OpKind::Noop || config.op == OpKind::Split ||
      is_identity_reshape(config)) {
    return {};
  }
  OpWork w = work(config);
  bool contraction = ir::op_info(config.op).category == ir::OpCategory::Contraction;
  double gflops = contraction ? machine_.peak_gflops : machine_.elementwise_gflops;
  // GFLOP/s * 1e6 = flops per millisecond; GB/s * 1e6 = bytes per millisecond.
  return {machine_.launch_overhead_ms, w.flops / (gflops * 1e6),
          w.bytes / (machine_.memory_gbytes_per_s * 1e6)};
}

double AnalyticCostModel::op_cost(const OpConfig& config) const {
  return roofline(config).total();
}

}  // namespace saturate::cost
