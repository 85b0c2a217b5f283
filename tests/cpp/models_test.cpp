#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>

#include "ir/graph.h"
#include "models/model_registry.h"

using saturate::ir::Dims;
using saturate::ir::Graph;
using saturate::ir::OpKind;
using saturate::models::all_models;
using saturate::models::find_model;
using saturate::models::ModelInfo;
using saturate::models::ModelOptions;

namespace {

Graph build(const std::string& name, bool reduced) {
  const ModelInfo* model = find_model(name);
  if (model == nullptr) throw std::runtime_error("no model " + name);
  return model->build(ModelOptions{.reduced = reduced});
}

Dims output_dims(const Graph& graph, size_t index = 0) {
  return graph.type(graph.outputs().at(index).value).dims;
}

}  // namespace

namespace {

class EveryModel : public testing::TestWithParam<ModelInfo> {};

TEST_P(EveryModel, BuildsFullSizeWithInputsAndOutputs) {
  Graph graph = GetParam().build(ModelOptions{});
  EXPECT_EQ(graph.name(), GetParam().name);
  EXPECT_FALSE(graph.inputs().empty());
  EXPECT_FALSE(graph.outputs().empty());
  EXPECT_GT(graph.num_operators(), 0u);
}

TEST_P(EveryModel, OpCountIsNearTheReference) {
  const ModelInfo& model = GetParam();
  if (model.reference_ops == 0) GTEST_SKIP() << "no reference count";
  Graph graph = model.build(ModelOptions{});
  double ops = static_cast<double>(graph.num_operators());
  EXPECT_LE(std::abs(ops - model.reference_ops), 0.15 * model.reference_ops)
      << model.name << " has " << ops << " operators, reference " << model.reference_ops;
}

TEST_P(EveryModel, ReducedHasTheSameOperatorsAndInterface) {
  Graph full = GetParam().build(ModelOptions{});
  Graph reduced = GetParam().build(ModelOptions{.reduced = true});
  EXPECT_EQ(reduced.op_histogram(), full.op_histogram());
  EXPECT_EQ(reduced.inputs().size(), full.inputs().size());
  ASSERT_EQ(reduced.outputs().size(), full.outputs().size());
  for (size_t i = 0; i < full.outputs().size(); ++i) {
    EXPECT_EQ(reduced.outputs()[i].name, full.outputs()[i].name);
    EXPECT_EQ(reduced.type(reduced.outputs()[i].value).rank(),
              full.type(full.outputs()[i].value).rank());
  }
}

TEST_P(EveryModel, ReducedIsSmall) {
  Graph reduced = GetParam().build(ModelOptions{.reduced = true});
  // Largest value: a bound that keeps a naive interpreter fast.
  int64_t largest = 0;
  for (const auto& node : reduced.nodes()) {
    for (const auto& type : node.outputs) largest = std::max(largest, type.num_elements());
  }
  EXPECT_LE(largest, 64 * 1024) << GetParam().name;
}

TEST_P(EveryModel, FindModelReturnsIt) {
  const ModelInfo* found = find_model(GetParam().name);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, GetParam().name);
  EXPECT_FALSE(found->description.empty());
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, testing::ValuesIn(all_models()),
                         [](const testing::TestParamInfo<ModelInfo>& param) {
                           return param.param.name;
                         });

TEST(ModelRegistry, ListsTheModelsInOrderWithUniqueNames) {
  std::vector<std::string> names;
  for (const auto& model : all_models()) names.push_back(model.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3",
                                      "squeezenet", "vgg19", "resnet50", "mobilenet_v2",
                                      "transformer", "transformer_decomposed"}));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST(ModelRegistry, RejectsUnknownNames) {
  EXPECT_EQ(find_model("alexnet"), nullptr);
  EXPECT_EQ(find_model(""), nullptr);
  EXPECT_EQ(find_model("BERT"), nullptr);
}

TEST(ModelShapes, Bert) {
  Graph graph = build("bert", false);
  EXPECT_EQ(output_dims(graph), (Dims{64, 1024}));
  EXPECT_EQ(graph.op_histogram().at("matmul"), 8 * 6);
  EXPECT_EQ(output_dims(build("bert", true)), (Dims{8, 32}));
}

TEST(ModelShapes, NasRnnHasFiveStepInputs) {
  Graph graph = build("nasrnn", false);
  EXPECT_EQ(graph.inputs().size(), 5u);
  EXPECT_EQ(output_dims(graph), (Dims{1, 512}));
  EXPECT_EQ(graph.op_histogram().at("matmul"), 5 * 16);
}

TEST(ModelShapes, NasNetA) {
  Graph graph = build("nasnet_a", false);
  // The last reduction cell concatenates 5 sums of 1024 channels at 7x7.
  EXPECT_EQ(output_dims(graph), (Dims{1, 5 * 1024, 7, 7}));
}

TEST(ModelShapes, ResNeXt50) {
  Graph graph = build("resnext50", false);
  EXPECT_EQ(output_dims(graph), (Dims{1, 2048, 7, 7}));
  EXPECT_EQ(graph.op_histogram().at("conv2d"), 1 + 16 * 3 + 4);
}

TEST(ModelShapes, InceptionV3EndsInAPooled8x8FeatureMap) {
  Graph graph = build("inception_v3", false);
  EXPECT_EQ(output_dims(graph), (Dims{1, 2048, 1, 1}));
  // The pool's input is the last E block's concat, the final feature map.
  const auto& pool = graph.node(graph.outputs()[0].value.node);
  ASSERT_EQ(pool.op, OpKind::PoolAvg);
  EXPECT_EQ(graph.type(pool.inputs[0]).dims, (Dims{1, 2048, 8, 8}));
  EXPECT_EQ(graph.op_histogram().at("conv2d"), 94);
}

TEST(ModelShapes, SqueezeNet) {
  Graph graph = build("squeezenet", false);
  EXPECT_EQ(output_dims(graph), (Dims{1, 1000}));
  EXPECT_EQ(graph.op_histogram().at("concat"), 8);
}

TEST(ModelShapes, Vgg19) {
  Graph graph = build("vgg19", false);
  EXPECT_EQ(output_dims(graph), (Dims{1, 1000}));
  EXPECT_EQ(graph.op_histogram().at("conv2d"), 16);
  EXPECT_EQ(graph.op_histogram().at("poolmax"), 5);
}

TEST(ModelShapes, ResNet50) {
  Graph graph = build("resnet50", false);
  EXPECT_EQ(graph.type(graph.find_value("input").value()).dims, (Dims{1, 64, 56, 56}));
  EXPECT_EQ(output_dims(graph), (Dims{1, 2048, 7, 7}));
}

TEST(ModelShapes, MobileNetV2) {
  Graph graph = build("mobilenet_v2", false);
  EXPECT_EQ(output_dims(graph), (Dims{1, 1000}));
  EXPECT_EQ(graph.op_histogram().at("conv2d"), 52);
  EXPECT_EQ(graph.op_histogram().at("ewadd"), 10);  // residuals
  EXPECT_EQ(graph.op_histogram().at("add"), 1);     // the classifier's broadcast bias
}

TEST(ModelShapes, Transformer) {
  Graph graph = build("transformer", false);
  EXPECT_EQ(output_dims(graph), (Dims{128, 512}));
  auto histogram = graph.op_histogram();
  EXPECT_EQ(histogram.at("softmax"), 1);
  EXPECT_EQ(histogram.at("layernorm"), 2);
  EXPECT_EQ(histogram.at("gelu"), 1);
  EXPECT_EQ(graph.nodes_of(OpKind::Constant).size(), 1u);
}

TEST(ModelShapes, TransformerDecomposedComputesWhatTheFusedBlockDoes) {
  Graph graph = build("transformer_decomposed", false);
  EXPECT_EQ(output_dims(graph), (Dims{128, 512}));
  auto histogram = graph.op_histogram();
  EXPECT_FALSE(histogram.contains("layernorm"));
  EXPECT_FALSE(histogram.contains("gelu"));
  EXPECT_EQ(histogram.at("softmax"), 2);  // two layers by default
  EXPECT_EQ(histogram.at("erf"), 2);
  EXPECT_EQ(histogram.at("reduce_mean"), 8);
  EXPECT_EQ(histogram.at("pow"), 2);  // one of the two layer norms squares by pow
  // More layers on request, for matching benchmarks.
  Graph deep = saturate::models::find_model("transformer_decomposed")
                   ->build(ModelOptions{.reduced = true, .layers = 6});
  EXPECT_EQ(deep.op_histogram().at("softmax"), 6);
}

}  // namespace
