// NasRNN as TASO's and TENSAT's builders define it: 5 steps of the cell found by neural
// architecture search, every term with its own fresh input and state weights.
#include <array>
#include <string>

#include "ir/graph_builder.h"
#include "models/layers.h"
#include "models/model_registry.h"

namespace saturate::models {
namespace {

using ir::GraphBuilder;
using ir::ValueRef;

constexpr int kSteps = 5;

// x·W + h·U with fresh weights.
ValueRef combine(GraphBuilder& b, ValueRef x, ValueRef h, int64_t hidden) {
  ValueRef from_input = b.matmul(x, b.weight({b.dims(x)[1], hidden}));
  ValueRef from_state = b.matmul(h, b.weight({b.dims(h)[1], hidden}));
  return b.ewadd(from_input, from_state);
}

// Each binary node's operands are built in separate statements so that node order does not
// depend on the compiler's argument evaluation order.
ValueRef nas_cell(GraphBuilder& b, ValueRef h, ValueRef x, int64_t hidden) {
  std::array<ValueRef, 8> t;
  for (auto& term : t) term = combine(b, x, h, hidden);
  ValueRef l = b.relu(t[0]);
  ValueRef r = b.sigmoid(t[3]);
  ValueRef m0 = b.ewadd(l, r);
  l = b.sigmoid(t[1]);
  r = b.tanh(t[2]);
  ValueRef m1 = b.ewadd(l, r);
  l = b.sigmoid(t[4]);
  r = b.tanh(t[5]);
  ValueRef m2 = b.ewmul(l, r);
  l = b.sigmoid(t[6]);
  r = b.relu(t[7]);
  ValueRef m3 = b.ewmul(l, r);
  l = b.sigmoid(m1);
  r = b.tanh(m2);
  ValueRef m4 = b.ewadd(l, r);
  l = b.tanh(m0);
  r = b.tanh(m3);
  ValueRef m5 = b.ewmul(l, r);
  l = b.tanh(m4);
  r = b.tanh(m5);
  ValueRef m6 = b.ewmul(l, r);
  return b.tanh(m6);
}

}  // namespace

ir::Graph build_nasrnn(const ModelOptions& options) {
  const int64_t hidden = scaled(512, 32, options);
  GraphBuilder b("nasrnn");
  std::array<ValueRef, kSteps> xs;
  for (int step = 0; step < kSteps; ++step)
    xs[step] = b.input("x" + std::to_string(step), {1, hidden});
  // The initial state is a weight, as in TASO's builder.
  ValueRef h = b.weight({1, hidden}, "h0");
  for (ValueRef x : xs) h = nas_cell(b, h, x, hidden);
  b.output("output", h);
  return std::move(b).finish();
}

}  // namespace saturate::models
