// Every bundled model through every part that exists: text form, interpreter, cost model.
#include <gtest/gtest.h>

#include <cmath>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "runtime/interpreter.h"

using namespace saturate;

namespace {

class EveryModel : public ::testing::TestWithParam<models::ModelInfo> {};

std::string model_name(const ::testing::TestParamInfo<models::ModelInfo>& info) {
  return info.param.name;
}

}  // namespace

TEST_P(EveryModel, TextFormRoundTripsExactly) {
  ir::Graph graph = GetParam().build({});
  std::string text = ir::write_text(graph);
  ir::Graph parsed = ir::parse_text(text, GetParam().name + ".sxp");
  EXPECT_TRUE(parsed == graph);
  EXPECT_EQ(ir::write_text(parsed), text);
}

TEST_P(EveryModel, ReducedSizeRunsInTheReferenceInterpreter) {
  ir::Graph graph = GetParam().build({.reduced = true});
  runtime::Interpreter interpreter;
  runtime::TensorMap outputs = interpreter.run(graph, runtime::random_feeds(graph, 1));
  ASSERT_EQ(outputs.size(), graph.outputs().size());
  for (const auto& output : graph.outputs()) {
    const runtime::Tensor& value = outputs.at(output.name);
    EXPECT_EQ(value.dims, graph.type(output.value).dims);
    if (!GetParam().finite_on_random_inputs) continue;
    double magnitude = 0;
    for (double v : value.data) {
      ASSERT_TRUE(std::isfinite(v)) << output.name;
      magnitude += std::fabs(v);
    }
    // Random weights scaled by fan-in keep activations alive through every layer.
    EXPECT_GT(magnitude, 0) << output.name << " is all zeros";
  }
}

TEST_P(EveryModel, HasPositiveAnalyticCostCountedOncePerNode) {
  ir::Graph graph = GetParam().build({});
  cost::AnalyticCostModel model;
  cost::GraphCost cost = cost::graph_cost(graph, model);
  EXPECT_GT(cost.total, 0);
  double sum = 0;
  for (double c : cost.per_node) sum += c;
  EXPECT_DOUBLE_EQ(sum, cost.total);
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, ::testing::ValuesIn(models::all_models()), model_name);
