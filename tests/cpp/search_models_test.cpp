#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cost/analytic_cost_model.h"
#include "eqsat/rule_file.h"
#include "models/model_registry.h"
#include "runtime/graph_comparison.h"
#include "search/taso_search.h"
#include "search_test_support.h"

using namespace saturate;
using namespace saturate::search;
using saturate::search::testing_support::library_rules;

namespace {

std::string model_name(const ::testing::TestParamInfo<models::ModelInfo>& param) {
  return param.param.name;
}

class TasoOnModels : public ::testing::TestWithParam<models::ModelInfo> {};

}  // namespace

// A few expansions on each reduced model: the result never costs more than the input and
// computes the same numbers.
TEST_P(TasoOnModels, ReducedModelKeepsItsNumbers) {
  ir::Graph graph = GetParam().build({.reduced = true});
  cost::AnalyticCostModel model;
  TasoOptions options;
  options.budget = 3;
  TasoResult result = taso_search(graph, library_rules(), model, options);
  EXPECT_LE(result.optimized_cost, result.original_cost);
  EXPECT_LE(result.expansions, 3u);
  EXPECT_GT(result.candidates.matches, 0u);
  if (GetParam().finite_on_random_inputs) {
    runtime::GraphComparison comparison = runtime::compare_graphs(graph, result.graph);
    EXPECT_TRUE(comparison.finite);
    EXPECT_LT(comparison.max_relative_error, 1e-9) << comparison.worst_output;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TasoOnModels, ::testing::ValuesIn(models::all_models()),
                         model_name);

// Longer searches stack many rewrites (fusions, merged convolutions and products); the numbers
// must still agree.
TEST(TasoDeepSearch, KeepsTheNumbers) {
  cost::AnalyticCostModel model;
  eqsat::RuleSet rules = library_rules();
  for (auto [name, budget] : {std::pair<const char*, size_t>{"squeezenet", 40}, {"nasrnn", 12}}) {
    ir::Graph graph = models::find_model(name)->build({.reduced = true});
    TasoOptions options;
    options.budget = budget;
    TasoResult result = taso_search(graph, rules, model, options);
    EXPECT_LT(result.optimized_cost, result.original_cost) << name;
    EXPECT_GT(result.best_path.size(), 5u) << name;
    runtime::GraphComparison comparison = runtime::compare_graphs(graph, result.graph);
    EXPECT_TRUE(comparison.finite) << name;
    EXPECT_LT(comparison.max_relative_error, 1e-9) << name << " " << comparison.worst_output;
  }
}
