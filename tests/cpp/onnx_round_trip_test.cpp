// Export then import: the re-imported graph computes what the original did, in the reference
// interpreter, for small graphs covering every operator and for every bundled model.
#include <gtest/gtest.h>

#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "models/model_registry.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx_test_support.h"

using namespace saturate;
using namespace saturate::onnx;

namespace {

// Largest relative output difference between `graph` (with random weights) and its round trip.
double round_trip_difference(const ir::Graph& graph, OnnxModel* imported_out = nullptr) {
  auto weights = onnx_testing::random_weights(graph, 11);
  OnnxModel source = make_export_source(graph, weights);
  OnnxModel imported = import_onnx_bytes(export_onnx(graph, source), "round trip");
  runtime::TensorMap inputs = runtime::random_feeds(graph, 12);
  runtime::Interpreter interpreter(runtime::Precision::F64);
  runtime::TensorMap expected =
      interpreter.run(graph, onnx_testing::feeds_with(graph, weights, inputs));
  runtime::TensorMap got = interpreter.run(
      imported.graph, onnx_testing::feeds_with(imported.graph, imported.weights, inputs));
  double worst = 0;
  EXPECT_EQ(got.size(), expected.size());
  for (const auto& [name, value] : expected) {
    EXPECT_TRUE(got.contains(name)) << name;
    if (got.contains(name)) {
      worst = std::max(worst, runtime::max_relative_difference(got.at(name), value));
    }
  }
  if (imported_out != nullptr) *imported_out = std::move(imported);
  return worst;
}

double round_trip_difference(std::string_view text) {
  return round_trip_difference(ir::parse_text(text));
}

}  // namespace

TEST(OnnxRoundTrip, ConvolutionsPoolsAndActivations) {
  EXPECT_LT(round_trip_difference(R"((graph convs
    (node x (input :shape [1 4 9 9]))
    (node w (weight :shape [6 4 3 3]))
    (node g (weight :shape [6 3 3 3]))
    (node c1 (conv2d x w :stride_h 2 :stride_w 1 :padding same :activation relu))
    (node c2 (conv2d c1 g :padding valid :activation tanh))
    (node p (pad c1 :pads [0 0 1 2 0 0 0 1]))
    (node c3 (conv2d p g :padding same :activation sigmoid))
    (node m (poolmax c2 :kernel_h 3 :kernel_w 2 :stride_h 2 :stride_w 2 :padding same))
    (node a (poolavg c3 :kernel_h 2 :kernel_w 2 :padding same :activation relu))
    (node pa (pad c1 :pads [0 0 1 1 0 0 1 1]))
    (node v (poolavg pa :kernel_h 3 :kernel_w 3 :padding valid))
    (output m m)
    (output a a)
    (output v v)))"),
            1e-5);
}

TEST(OnnxRoundTrip, TransformerOperators) {
  EXPECT_LT(round_trip_difference(R"((graph transformer
    (node x (input :shape [2 4 8]))
    (node w (weight :shape [8 8]))
    (node s (weight :shape [8]))
    (node b (weight :shape [8]))
    (node ln (layernorm x s b :epsilon 0.001))
    (node q (matmul ln w :activation relu))
    (node k (transpose q :perm [0 2 1]))
    (node at (attention q k ln :scale 2.5))
    (node ge (gelu at))
    (node sm (softmax ge :axis 1))
    (node rm (reduce_mean sm :axes [2] :keepdims 0))
    (node cl (clip rm :min -0.1 :max 0.2))
    (node e (exp cl))
    (node r (reshape e :shape [8 -1]))
    (output y r)
    (output z ge)))"),
            1e-5);
}

TEST(OnnxRoundTrip, LayoutAndWeightOnlySubgraphs) {
  OnnxModel imported;
  EXPECT_LT(round_trip_difference(ir::parse_text(R"((graph layout
    (node x (input :shape [1 4 6 6]))
    (node w1 (weight :shape [4 2 1 1]))
    (node w3 (weight :shape [4 2 3 3]))
    (node big (enlarge w1 w3))
    (node both (concat big w3 :axis 0))
    (node merged (merge w3 :count 2))
    (node c (conv2d x both))
    (node d (conv2d x merged))
    (node (s0 s1) (split c :axis 1 :sizes [3 5]))
    (node j (concat s1 d s0 :axis 1))
    (node t (transpose j :perm [0 2 3 1]))
    (node bs (weight :shape [4]))
    (node bb (weight :shape [4]))
    (node bm (weight :shape [4]))
    (node bv (weight :shape [4]))
    (node bn (batchnorm d bs bb bm bv))
    (node sub (sub bn d))
    (node two (constant :shape [] :value 2))
    (node dv (div sub two))
    (output t t)
    (output dv dv)))")),
            1e-5);
}

TEST(OnnxRoundTrip, ExportFoldsWeightOnlyOperatorsIntoInitializers) {
  OnnxModel imported;
  round_trip_difference(ir::parse_text(R"((graph fold
    (node x (input :shape [1 2 5 5]))
    (node a (weight :shape [3 2 3 3]))
    (node b (weight :shape [3 2 3 3]))
    (node ab (concat a b :axis 0))
    (node c (conv2d x ab :activation relu))
    (output y c)))"),
                        &imported);
  // The concat of weights is one initializer now; the fused relu is a node of its own again.
  EXPECT_EQ(imported.graph.op_histogram(),
            (std::map<std::string, int>{{"conv2d", 1}, {"relu", 1}}));
  EXPECT_EQ(imported.weights.size(), 1u);
}

class OnnxBundledModel : public ::testing::TestWithParam<models::ModelInfo> {};

TEST_P(OnnxBundledModel, ExportsAndReimportsWithTheSameOutputs) {
  const models::ModelInfo& model = GetParam();
  ir::Graph graph = model.build(models::ModelOptions{.reduced = true});
  OnnxModel imported;
  double difference = round_trip_difference(graph, &imported);
  if (model.finite_on_random_inputs) {
    EXPECT_LT(difference, 1e-4) << model.name;
  }
  EXPECT_EQ(imported.graph.outputs().size(), graph.outputs().size());
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    EXPECT_EQ(imported.graph.type(imported.graph.outputs()[k].value),
              graph.type(graph.outputs()[k].value));
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, OnnxBundledModel, ::testing::ValuesIn(models::all_models()),
                         [](const auto& param_info) { return param_info.param.name; });
