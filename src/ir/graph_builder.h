#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace saturate::ir {

// Convenience layer for building graphs in C++ (benchmark models, tests): one method per
// operator, weights created and named automatically (w0, w1, ...). Every call is shape-checked
// by Graph::add_node.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name) : graph_(std::move(graph_name)) {}

  ValueRef input(const std::string& name, Dims dims);
  // A fresh weight; named "w<N>" unless a name is given.
  ValueRef weight(Dims dims, const std::string& name = "");
  ValueRef constant(double value, Dims dims = {});

  ValueRef ewadd(ValueRef a, ValueRef b);
  ValueRef ewmul(ValueRef a, ValueRef b);
  ValueRef add(ValueRef a, ValueRef b);  // broadcasting
  ValueRef mul(ValueRef a, ValueRef b);  // broadcasting
  ValueRef sub(ValueRef a, ValueRef b);
  ValueRef div(ValueRef a, ValueRef b);
  ValueRef pow(ValueRef a, ValueRef b);
  ValueRef matmul(ValueRef a, ValueRef b, Activation activation = Activation::None);
  ValueRef conv2d(ValueRef input, ValueRef weight, int64_t stride_h = 1, int64_t stride_w = 1,
                  Padding padding = Padding::Same, Activation activation = Activation::None);
  // A convolution with a fresh weight of shape (out_channels, in_channels / groups, kh, kw).
  ValueRef conv(ValueRef input, int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                int64_t stride = 1, Padding padding = Padding::Same,
                Activation activation = Activation::None, int64_t groups = 1);
  ValueRef relu(ValueRef x);
  ValueRef tanh(ValueRef x);
  ValueRef sigmoid(ValueRef x);
  ValueRef sqrt(ValueRef x);
  ValueRef erf(ValueRef x);
  ValueRef exp(ValueRef x);
  ValueRef gelu(ValueRef x);
  ValueRef clip(ValueRef x, double min, double max);
  ValueRef poolmax(ValueRef x, int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                   int64_t stride_w, Padding padding = Padding::Same,
                   Activation activation = Activation::None);
  ValueRef poolavg(ValueRef x, int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                   int64_t stride_w, Padding padding = Padding::Same,
                   Activation activation = Activation::None);
  ValueRef transpose(ValueRef x, std::vector<int64_t> perm);
  ValueRef reshape(ValueRef x, Dims shape);
  ValueRef enlarge(ValueRef kernel, ValueRef reference);
  ValueRef concat(int64_t axis, std::vector<ValueRef> inputs);
  std::vector<ValueRef> split(ValueRef x, int64_t axis, std::vector<int64_t> sizes);
  ValueRef merge(ValueRef weight, int64_t count);
  // Batch normalization with fresh scale, bias, mean and variance weights.
  ValueRef batchnorm(ValueRef x, double epsilon = 1e-5);
  ValueRef softmax(ValueRef x, int64_t axis = -1);
  // Layer normalization over the last axis with fresh scale and bias weights.
  ValueRef layernorm(ValueRef x, double epsilon = 1e-5);
  // softmax(q k / scale) v with k already transposed.
  ValueRef attention(ValueRef q, ValueRef k, ValueRef v, double scale);
  ValueRef reduce_mean(ValueRef x, std::vector<int64_t> axes, bool keepdims = true);
  ValueRef noop(ValueRef a, ValueRef b);

  // Any operator with one output.
  ValueRef apply(OpKind op, std::vector<ValueRef> inputs, const Attributes& attrs = {});
  // Every output of an operator (one or several).
  std::vector<ValueRef> apply_outputs(OpKind op, std::vector<ValueRef> inputs,
                                      const Attributes& attrs = {});

  void output(const std::string& name, ValueRef value) { graph_.add_output(name, value); }
  const Dims& dims(ValueRef value) const { return graph_.type(value).dims; }
  const Graph& graph() const { return graph_; }
  Graph finish() && { return std::move(graph_); }

 private:
  Graph graph_;
  int weight_count_ = 0;
};

}  // namespace saturate::ir
