// Pricing configurations with symbolic dimensions at weighted profiles (ProfiledCostModel), and
// the clear refusal of symbolic shapes by the models that read sizes.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cost/analytic_cost_model.h"
#include "cost/measured_cost_model.h"
#include "cost/one_node_graph.h"
#include "cost/profiled_cost_model.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::cost;

namespace {

OwnedOpConfig config_of(ir::OpKind op, std::vector<ir::TensorType> inputs,
                        const ir::Attributes& attrs = {}) {
  OwnedOpConfig config{op, ir::complete_attributes(ir::op_info(op), attrs), std::move(inputs), {}};
  config.outputs = ir::infer_types(op, config.inputs, config.attrs);
  return config;
}

ir::TensorType f32(ir::Dims dims) {
  return {ir::DType::F32, std::move(dims)};
}

int64_t batch() {
  return ir::symbol_dim(ir::symbol_named("batch"));
}
int64_t sequence() {
  return ir::symbol_dim(ir::symbol_named("sequence"));
}

// [batch sequence 768] x [768 256]; at a binding, the same product with sizes.
OwnedOpConfig symbolic_matmul() {
  return config_of(ir::OpKind::MatMul, {f32({batch(), sequence(), 768}), f32({768, 256})});
}
OwnedOpConfig concrete_matmul(int64_t b, int64_t s) {
  return config_of(ir::OpKind::MatMul, {f32({b, s, 768}), f32({768, 256})});
}

// Records what it is asked; prices a configuration by its first output's element count.
struct Recording {
  std::vector<OwnedOpConfig> prepared;
  std::vector<OwnedOpConfig> priced;
  size_t prepare_calls = 0;
};

class RecordingModel : public CostModel {
 public:
  explicit RecordingModel(std::shared_ptr<Recording> log) : log_(std::move(log)) {}
  std::string name() const override { return "recording"; }
  double op_cost(const OpConfig& config) const override {
    log_->priced.push_back(OwnedOpConfig::from(config));
    return static_cast<double>(config.outputs.front().num_elements());
  }
  bool wants_prepare() const override { return true; }
  void prepare(const std::vector<OwnedOpConfig>& configs) const override {
    ++log_->prepare_calls;
    log_->prepared.insert(log_->prepared.end(), configs.begin(), configs.end());
  }

 private:
  std::shared_ptr<Recording> log_;
};

class RefusingTimer : public OpTimer {
 public:
  std::string backend() const override { return "fake"; }
  std::string fingerprint() const override { return "fake-machine"; }
  bool supports(const OpConfig&) const override { return true; }
  std::vector<double> time_ms(const std::vector<OwnedOpConfig>& configs) override {
    ADD_FAILURE() << "a symbolic configuration reached the timer";
    return std::vector<double>(configs.size(), 1.0);
  }
};

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST(ProfiledCostModel, SymbolicMatMulIsTheWeightedSumOfConcretePrices) {
  const AnalyticCostModel analytic;
  ProfiledCostModel profiled(
      std::make_unique<AnalyticCostModel>(),
      {{{{"batch", 1}, {"sequence", 128}}, 1.0}, {{{"batch", 8}, {"sequence", 512}}, 3.0}});
  const OwnedOpConfig config = symbolic_matmul();
  ASSERT_TRUE(has_symbolic_shape(config.view()));
  const double small = analytic.op_cost(concrete_matmul(1, 128).view());
  const double large = analytic.op_cost(concrete_matmul(8, 512).view());
  EXPECT_GT(large, small);
  // Weights are relative: 1 and 3 are shares 1/4 and 3/4.
  EXPECT_DOUBLE_EQ(profiled.op_cost(config.view()), 0.25 * small + 0.75 * large);
  EXPECT_EQ(profiled.shares(), (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(profiled.name(), "analytic at 2 profiles");
  EXPECT_EQ(&unwrap_profiles(profiled), &profiled.inner());
}

TEST(ProfiledCostModel, OneProfileIsThePriceThere) {
  const AnalyticCostModel analytic;
  ProfiledCostModel profiled(std::make_unique<AnalyticCostModel>(),
                             {{{{"batch", 2}, {"sequence", 64}}, 0.5}});
  EXPECT_DOUBLE_EQ(profiled.op_cost(symbolic_matmul().view()),
                   analytic.op_cost(concrete_matmul(2, 64).view()));
  EXPECT_EQ(profiled.name(), "analytic at 1 profile");
}

TEST(ProfiledCostModel, StaticConfigurationIsPricedByTheInnerModel) {
  const AnalyticCostModel analytic;
  ProfiledCostModel profiled(
      std::make_unique<AnalyticCostModel>(),
      {{{{"batch", 1}, {"sequence", 128}}, 1.0}, {{{"batch", 8}, {"sequence", 512}}, 3.0}});
  const OwnedOpConfig config = concrete_matmul(4, 32);
  EXPECT_FALSE(has_symbolic_shape(config.view()));
  EXPECT_EQ(profiled.op_cost(config.view()), analytic.op_cost(config.view()));
}

TEST(ProfiledCostModel, PrepareForwardsConcreteConfigurationsOnlyInOneBatch) {
  auto log = std::make_shared<Recording>();
  ProfiledCostModel profiled(
      std::make_unique<RecordingModel>(log),
      {{{{"batch", 1}, {"sequence", 128}}, 1.0}, {{{"batch", 8}, {"sequence", 512}}, 1.0}});
  EXPECT_TRUE(profiled.wants_prepare());
  profiled.prepare({symbolic_matmul(), concrete_matmul(4, 32)});
  EXPECT_EQ(log->prepare_calls, 1u);
  ASSERT_EQ(log->prepared.size(), 3u);  // the symbolic one at both profiles, the static one
  for (const OwnedOpConfig& config : log->prepared) {
    EXPECT_FALSE(has_symbolic_shape(config.view())) << describe(config.view());
  }
  EXPECT_EQ(describe(log->prepared[0].view()), describe(concrete_matmul(1, 128).view()));
  EXPECT_EQ(describe(log->prepared[1].view()), describe(concrete_matmul(8, 512).view()));
  EXPECT_EQ(describe(log->prepared[2].view()), describe(concrete_matmul(4, 32).view()));

  // Pricing asks the inner model about concrete configurations only, too.
  EXPECT_DOUBLE_EQ(profiled.op_cost(symbolic_matmul().view()),
                   0.5 * (1 * 128 * 256) + 0.5 * (8 * 512 * 256));
  for (const OwnedOpConfig& config : log->priced) EXPECT_FALSE(has_symbolic_shape(config.view()));
}

TEST(BindConfig, ReshapeTargetShapeIsBound) {
  const int64_t heads_axis = ir::dim_product(batch(), sequence());
  const OwnedOpConfig config = config_of(ir::OpKind::Reshape, {f32({batch(), sequence(), 768})},
                                         {{"shape", ir::Dims{heads_axis, 12, 64}}});
  ASSERT_TRUE(has_symbolic_shape(config.view()));
  const OwnedOpConfig bound = bind_config(config.view(), {{"batch", 2}, {"sequence", 5}});
  const OwnedOpConfig expected =
      config_of(ir::OpKind::Reshape, {f32({2, 5, 768})}, {{"shape", ir::Dims{10, 12, 64}}});
  EXPECT_EQ(bound.attrs, expected.attrs);
  EXPECT_EQ(bound.inputs, expected.inputs);
  EXPECT_EQ(bound.outputs, expected.outputs);
  EXPECT_FALSE(has_symbolic_shape(bound.view()));
  // A static configuration comes back as it is.
  const OwnedOpConfig same = bind_config(expected.view(), {{"batch", 7}});
  EXPECT_EQ(same.attrs, expected.attrs);
  EXPECT_EQ(same.outputs, expected.outputs);
}

TEST(BindConfig, SliceToTheEndOfASymbolicAxisEndsAtTheBoundSize) {
  const OwnedOpConfig config = config_of(
      ir::OpKind::Slice, {f32({sequence(), 64})},
      {{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", std::numeric_limits<int64_t>::max()}});
  const OwnedOpConfig bound = bind_config(config.view(), {{"sequence", 10}});
  const OwnedOpConfig expected =
      config_of(ir::OpKind::Slice, {f32({10, 64})},
                {{"axis", int64_t{0}}, {"start", int64_t{1}}, {"end", int64_t{10}}});
  EXPECT_EQ(bound.attrs, expected.attrs);
  EXPECT_EQ(bound.outputs, expected.outputs);
  // What a timer builds from it is a valid concrete graph.
  EXPECT_NO_THROW(one_node_graph(bound));
}

TEST(BindConfig, UnboundSymbolIsNamed) {
  const std::string message = error_of([] {
    bind_config(symbolic_matmul().view(), {{"batch", 1}});
  });
  EXPECT_NE(message.find("sequence"), std::string::npos) << message;
  EXPECT_NE(message.find("matmul"), std::string::npos) << message;
}

TEST(ProfiledCostModel, RefusesBadProfiles) {
  EXPECT_THROW(ProfiledCostModel(std::make_unique<AnalyticCostModel>(), {}), Error);
  EXPECT_THROW(ProfiledCostModel(nullptr, {{{{"batch", 1}}, 1.0}}), Error);
  EXPECT_THROW(ProfiledCostModel(std::make_unique<AnalyticCostModel>(), {{{{"batch", 1}}, 0.0}}),
               Error);
  EXPECT_THROW(ProfiledCostModel(std::make_unique<AnalyticCostModel>(), {{{{"batch", 1}}, -1.0}}),
               Error);
}

TEST(SymbolicShapes, ModelsThatReadSizesRefuseThemClearly) {
  const OwnedOpConfig config = symbolic_matmul();
  const AnalyticCostModel analytic;
  std::string message = error_of([&] { analytic.op_cost(config.view()); });
  EXPECT_NE(message.find("cost model given a symbolic shape"), std::string::npos) << message;
  EXPECT_NE(message.find("batch"), std::string::npos) << message;
  EXPECT_THROW(AnalyticCostModel::work(config.view()), Error);

  MeasuredCostModel measured(std::make_unique<RefusingTimer>(),
                             std::make_unique<AnalyticCostModel>(), nullptr);
  message = error_of([&] { measured.op_cost(config.view()); });
  EXPECT_NE(message.find("cost model given a symbolic shape"), std::string::npos) << message;
  message = error_of([&] { measured.prepare({config}); });
  EXPECT_NE(message.find("cost model given a symbolic shape"), std::string::npos) << message;
  EXPECT_EQ(measured.stats().measured, 0u);

  message = error_of([&] { one_node_graph(config); });
  EXPECT_NE(message.find("cost model given a symbolic shape"), std::string::npos) << message;

  // Wrapped, a measured model keeps its name and statistics under the wrapper.
  ProfiledCostModel profiled(
      std::make_unique<MeasuredCostModel>(std::make_unique<RefusingTimer>(),
                                          std::make_unique<AnalyticCostModel>(), nullptr),
      {{{{"batch", 1}, {"sequence", 16}}, 1.0}});
  EXPECT_EQ(profiled.name(), "fake at 1 profile");
  EXPECT_NE(dynamic_cast<const MeasuredCostModel*>(&unwrap_profiles(profiled)), nullptr);
}
