#include "ir/graph_builder.h"

#include "ir/symbolic_dim.h"
#include "support/error.h"

namespace saturate::ir {

ValueRef GraphBuilder::input(const std::string& name, Dims dims) {
  return graph_.add_input(name, std::move(dims));
}

ValueRef GraphBuilder::weight(Dims dims, const std::string& name) {
  std::string chosen = name;
  if (chosen.empty()) {
    do {
      chosen = "w" + std::to_string(weight_count_++);
    } while (graph_.find_value(chosen));
  }
  return graph_.add_weight(chosen, std::move(dims));
}

ValueRef GraphBuilder::constant(double value, Dims dims) {
  return apply(OpKind::Constant, {}, {{"shape", std::move(dims)}, {"value", value}});
}

ValueRef GraphBuilder::apply(OpKind op, std::vector<ValueRef> inputs, const Attributes& attrs) {
  NodeId id = graph_.add_node(op, std::move(inputs), attrs);
  if (graph_.node(id).outputs.size() != 1) {
    throw Error("GraphBuilder::apply used on a multi-output operator");
  }
  return {id, 0};
}

std::vector<ValueRef> GraphBuilder::apply_outputs(OpKind op, std::vector<ValueRef> inputs,
                                                  const Attributes& attrs) {
  NodeId id = graph_.add_node(op, std::move(inputs), attrs);
  std::vector<ValueRef> outputs;
  for (size_t k = 0; k < graph_.node(id).outputs.size(); ++k) {
    outputs.push_back({id, static_cast<uint32_t>(k)});
  }
  return outputs;
}

ValueRef GraphBuilder::ewadd(ValueRef a, ValueRef b) {
  return apply(OpKind::EwAdd, {a, b});
}
ValueRef GraphBuilder::ewmul(ValueRef a, ValueRef b) {
  return apply(OpKind::EwMul, {a, b});
}
ValueRef GraphBuilder::add(ValueRef a, ValueRef b) {
  return apply(OpKind::Add, {a, b});
}
ValueRef GraphBuilder::mul(ValueRef a, ValueRef b) {
  return apply(OpKind::Mul, {a, b});
}
ValueRef GraphBuilder::sub(ValueRef a, ValueRef b) {
  return apply(OpKind::Sub, {a, b});
}
ValueRef GraphBuilder::div(ValueRef a, ValueRef b) {
  return apply(OpKind::Div, {a, b});
}
ValueRef GraphBuilder::pow(ValueRef a, ValueRef b) {
  return apply(OpKind::Pow, {a, b});
}

ValueRef GraphBuilder::matmul(ValueRef a, ValueRef b, Activation activation) {
  return apply(OpKind::MatMul, {a, b}, {{"activation", static_cast<int64_t>(activation)}});
}

ValueRef GraphBuilder::conv2d(ValueRef input, ValueRef weight, int64_t stride_h, int64_t stride_w,
                              Padding padding, Activation activation) {
  return apply(OpKind::Conv2d, {input, weight},
               {{"stride_h", stride_h},
                {"stride_w", stride_w},
                {"padding", static_cast<int64_t>(padding)},
                {"activation", static_cast<int64_t>(activation)}});
}

ValueRef GraphBuilder::conv(ValueRef input, int64_t out_channels, int64_t kernel_h,
                            int64_t kernel_w, int64_t stride, Padding padding,
                            Activation activation, int64_t groups) {
  const Dims& in = dims(input);
  auto per_group = in.size() == 4 && groups > 0 ? dim_quotient(in[1], groups) : std::nullopt;
  if (!per_group) {
    throw Error("conv: input " + to_string(in) + " cannot be split into " + std::to_string(groups) +
                " groups");
  }
  ValueRef w = weight({out_channels, *per_group, kernel_h, kernel_w});
  return conv2d(input, w, stride, stride, padding, activation);
}

ValueRef GraphBuilder::relu(ValueRef x) {
  return apply(OpKind::Relu, {x});
}
ValueRef GraphBuilder::tanh(ValueRef x) {
  return apply(OpKind::Tanh, {x});
}
ValueRef GraphBuilder::sigmoid(ValueRef x) {
  return apply(OpKind::Sigmoid, {x});
}
ValueRef GraphBuilder::sqrt(ValueRef x) {
  return apply(OpKind::Sqrt, {x});
}
ValueRef GraphBuilder::erf(ValueRef x) {
  return apply(OpKind::Erf, {x});
}
ValueRef GraphBuilder::exp(ValueRef x) {
  return apply(OpKind::Exp, {x});
}
ValueRef GraphBuilder::gelu(ValueRef x) {
  return apply(OpKind::Gelu, {x});
}

ValueRef GraphBuilder::clip(ValueRef x, double min, double max) {
  return apply(OpKind::Clip, {x}, {{"min", min}, {"max", max}});
}

namespace {
Attributes window_attrs(int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                        Padding padding, Activation activation) {
  return {{"kernel_h", kernel_h},
          {"kernel_w", kernel_w},
          {"stride_h", stride_h},
          {"stride_w", stride_w},
          {"padding", static_cast<int64_t>(padding)},
          {"activation", static_cast<int64_t>(activation)}};
}
}  // namespace

ValueRef GraphBuilder::poolmax(ValueRef x, int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                               int64_t stride_w, Padding padding, Activation activation) {
  return apply(OpKind::PoolMax, {x},
               window_attrs(kernel_h, kernel_w, stride_h, stride_w, padding, activation));
}

ValueRef GraphBuilder::poolavg(ValueRef x, int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                               int64_t stride_w, Padding padding, Activation activation) {
  return apply(OpKind::PoolAvg, {x},
               window_attrs(kernel_h, kernel_w, stride_h, stride_w, padding, activation));
}

ValueRef GraphBuilder::transpose(ValueRef x, std::vector<int64_t> perm) {
  return apply(OpKind::Transpose, {x}, {{"perm", std::move(perm)}});
}

ValueRef GraphBuilder::reshape(ValueRef x, Dims shape) {
  return apply(OpKind::Reshape, {x}, {{"shape", std::move(shape)}});
}

ValueRef GraphBuilder::enlarge(ValueRef kernel, ValueRef reference) {
  return apply(OpKind::Enlarge, {kernel, reference});
}

ValueRef GraphBuilder::concat(int64_t axis, std::vector<ValueRef> inputs) {
  return apply(OpKind::Concat, std::move(inputs), {{"axis", axis}});
}

std::vector<ValueRef> GraphBuilder::split(ValueRef x, int64_t axis, std::vector<int64_t> sizes) {
  NodeId id = graph_.add_node(OpKind::Split, {x}, {{"axis", axis}, {"sizes", std::move(sizes)}});
  std::vector<ValueRef> parts;
  for (uint32_t k = 0; k < graph_.node(id).outputs.size(); ++k) parts.push_back({id, k});
  return parts;
}

ValueRef GraphBuilder::merge(ValueRef weight, int64_t count) {
  return apply(OpKind::Merge, {weight}, {{"count", count}});
}

ValueRef GraphBuilder::batchnorm(ValueRef x, double epsilon) {
  const Dims& in = dims(x);
  if (in.size() < 2) throw Error("batchnorm: input " + to_string(in) + " has no channel axis");
  int64_t channels = in[1];
  ValueRef scale = weight({channels});
  ValueRef bias = weight({channels});
  ValueRef mean = weight({channels});
  ValueRef variance = weight({channels});
  return apply(OpKind::BatchNorm, {x, scale, bias, mean, variance}, {{"epsilon", epsilon}});
}

ValueRef GraphBuilder::softmax(ValueRef x, int64_t axis) {
  return apply(OpKind::Softmax, {x}, {{"axis", axis}});
}

ValueRef GraphBuilder::attention(ValueRef q, ValueRef k, ValueRef v, double scale) {
  return apply(OpKind::Attention, {q, k, v}, {{"scale", scale}});
}

ValueRef GraphBuilder::layernorm(ValueRef x, double epsilon) {
  const Dims& in = dims(x);
  if (in.empty()) throw Error("layernorm: input must have rank >= 1");
  ValueRef scale = weight({in.back()});
  ValueRef bias = weight({in.back()});
  return apply(OpKind::LayerNorm, {x, scale, bias}, {{"axis", int64_t{-1}}, {"epsilon", epsilon}});
}

ValueRef GraphBuilder::reduce_mean(ValueRef x, std::vector<int64_t> axes, bool keepdims) {
  return apply(OpKind::ReduceMean, {x},
               {{"axes", std::move(axes)}, {"keepdims", int64_t{keepdims ? 1 : 0}}});
}

ValueRef GraphBuilder::noop(ValueRef a, ValueRef b) {
  return apply(OpKind::Noop, {a, b});
}

}  // namespace saturate::ir
