// Import and export errors: one line, naming what is wrong; export writes nothing on error.
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "ir/symbolic_dim.h"
#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx/protobuf_log.h"
#include "onnx_model_builder.h"
#include "onnx_test_support.h"
#include "runtime/interpreter.h"
#include "source_dir.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::onnx;
using onnx_testing::import_error;

namespace {

const char* kSmall = R"((graph small
    (node x (input :shape [2 4]))
    (node w (weight :shape [4 4]))
    (node y (matmul x w :activation relu))
    (output y y)))";

std::string small_model_bytes() {
  ir::Graph graph = ir::parse_text(kSmall);
  return export_onnx(graph, make_export_source(graph, onnx_testing::random_weights(graph, 1)));
}

::onnx::ModelProto small_model() {
  ::onnx::ModelProto model;
  model.ParseFromString(small_model_bytes());
  return model;
}

std::string bytes_of(const ::onnx::ModelProto& model) {
  return model.SerializeAsString();
}

}  // namespace

TEST(OnnxErrors, GarbageAndTruncatedBytes) {
  EXPECT_NE(import_error("this is not a protobuf at all \xff\xfe").find("not a valid ONNX model"),
            std::string::npos);
  std::string bytes = small_model_bytes();
  std::string message = import_error(bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(message.find("m.onnx"), std::string::npos) << message;
}

TEST(OnnxErrors, UnsupportedOpset) {
  ::onnx::ModelProto model = small_model();
  model.mutable_opset_import(0)->set_version(9);
  EXPECT_NE(import_error(bytes_of(model)).find("opset 9 is not supported"), std::string::npos);
}

TEST(OnnxErrors, DynamicInputDimensionIsASymbolAndPinsMustAgree) {
  ::onnx::ModelProto model = small_model();
  auto* dim = model.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(0);
  dim->set_dim_param("batch");
  OnnxModel imported = import_onnx_bytes(bytes_of(model), "m.onnx");
  const ir::Dims& dims = imported.graph.type(*imported.graph.find_value("x")).dims;
  EXPECT_EQ(ir::dim_to_string(dims[0]), "batch");
  EXPECT_EQ(dims[1], 4);
  // Two inputs that name one dim: a pin of each must give it one size.
  ::onnx::ModelProto twice = model;
  auto* second = twice.mutable_graph()->add_input();
  *second = twice.graph().input(0);
  second->set_name("x2");
  ImportOptions options;
  options.input_shapes = {{"x", {2, 4}}, {"x2", {3, 4}}};
  std::string message = import_error(bytes_of(twice), options);
  EXPECT_NE(message.find("gives the dimension batch both 2 and 3"), std::string::npos) << message;
}

TEST(OnnxErrors, MissingInitializerAndNonFloatInput) {
  ::onnx::ModelProto model = small_model();
  model.mutable_graph()->clear_initializer();
  EXPECT_NE(import_error(bytes_of(model)).find("unknown value name w"), std::string::npos);
  model = small_model();
  model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      ::onnx::TensorProto::INT64);
  EXPECT_NE(import_error(bytes_of(model)).find("INT64"), std::string::npos);
}

TEST(OnnxErrors, ExportWithoutWeightDataWritesNothing) {
  ir::Graph graph = ir::parse_text(kSmall);
  std::filesystem::path path = std::filesystem::temp_directory_path() / "saturate_no_weights.onnx";
  std::filesystem::remove(path);
  try {
    write_onnx(graph, make_export_source(graph, {}), path.string());
    ADD_FAILURE() << "expected an export error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no data for weight 'w'"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(OnnxErrors, WriteOnnxWritesACheckedFile) {
  ir::Graph graph = ir::parse_text(kSmall);
  std::filesystem::path path = std::filesystem::temp_directory_path() / "saturate_small.onnx";
  write_onnx(graph, make_export_source(graph, onnx_testing::random_weights(graph, 1)),
             path.string());
  OnnxModel back = import_onnx(path.string());
  EXPECT_EQ(back.graph.op_histogram(), (std::map<std::string, int>{{"matmul", 1}, {"relu", 1}}));
  EXPECT_EQ(back.opset, 17);
  std::filesystem::remove(path);
}

// ---------------------------------------------------------------------------------------------
// Bad attributes and shapes (issue 15): each a one-line error naming the node, the attribute and
// the value, caught before ONNX's own shape inference sees them (strides 0 there is a SIGFPE).

namespace {

using onnx_testing::ModelBuilder;
constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// x [1 4 8 8] -> Conv(w [8 4/group 3 3]) -> y, with `configure` adding attributes.
template <typename F>
std::string conv_error(F configure, int64_t weight_in = 4) {
  ModelBuilder b;
  b.input("x", kFloat, {1, 4, 8, 8}).weights("w", {8, weight_in, 3, 3}).output("y", kFloat);
  configure(b.node("Conv", {"x", "w"}, {"y"}));
  return import_error(b.bytes());
}

void expect_all(const std::string& message, const std::vector<std::string>& fragments) {
  for (const auto& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos) << fragment << " in: " << message;
  }
}

}  // namespace

TEST(OnnxErrors, ConvZeroStridesIsAnErrorNotSigfpe) {
  std::string message = conv_error([](auto& node) {
    ModelBuilder::attr(node, "strides", std::vector<int64_t>{0, 0});
  });
  expect_all(message, {"m.onnx", "node y_node, op Conv", "attribute strides [0 0]",
                       "each stride must be at least 1"});
}

TEST(OnnxErrors, WindowAttributesOutOfRange) {
  expect_all(conv_error([](auto& node) {
               ModelBuilder::attr(node, "dilations", std::vector<int64_t>{1, 0});
             }),
             {"attribute dilations [1 0]", "at least 1", "got 0"});
  expect_all(conv_error([](auto& node) {
               ModelBuilder::attr(node, "pads", std::vector<int64_t>{0, -1, 0, 0});
             }),
             {"attribute pads [0 -1 0 0]", "non-negative"});
  expect_all(conv_error([](auto& node) {
               ModelBuilder::attr(node, "pads", std::vector<int64_t>{1, 1});
             }),
             {"attribute pads [1 1] has 2 values, expected 4"});
  expect_all(conv_error([](auto& node) {
               ModelBuilder::attr(node, "strides", std::vector<int64_t>{1, 1, 1});
             }),
             {"attribute strides [1 1 1] has 3 values, expected 2"});
  expect_all(conv_error([](auto& node) {
               ModelBuilder::attr(node, "pads", std::vector<int64_t>{0, kInt64Max, 0, 0});
             }),
             {"attribute pads", "9223372036854775807", "at most 2^40"});
}

TEST(OnnxErrors, HugeStrideWithSamePaddingIsAnError) {
  std::string message = conv_error([](auto& node) {
    ModelBuilder::attr(node, "strides", std::vector<int64_t>{kInt64Max, 1});
    auto* pad = node.add_attribute();
    pad->set_name("auto_pad");
    pad->set_type(::onnx::AttributeProto::STRING);
    pad->set_s("SAME_UPPER");
  });
  expect_all(message, {"attribute strides", "9223372036854775807", "at most 2^40"});
}

TEST(OnnxErrors, ConvGroupMustDivideTheChannels) {
  for (int64_t group : {int64_t{0}, int64_t{-2}}) {
    expect_all(
        conv_error([group](auto& node) { ModelBuilder::attr(node, "group", group); }),
        {"node y_node, op Conv", "attribute group = " + std::to_string(group), "at least 1"});
  }
  expect_all(conv_error([](auto& node) { ModelBuilder::attr(node, "group", int64_t{3}); }),
             {"attribute group = 3 does not divide the 4 input channels"});
  // The weight reads 2 channels per group, the input has 4 (group 1).
  expect_all(conv_error([](auto&) {}, 2), {"the weight has 2 input channels per group",
                                           "4 channels / group 1 = 4", "weight [8 2 3 3]"});
}

TEST(OnnxErrors, FuzzedWindowAttributesNeverCrash) {
  // Every window operator with every bad value of every integer attribute: an error each time.
  const std::vector<std::string> ops = {"Conv", "ConvTranspose", "MaxPool", "AveragePool",
                                        "LpPool"};
  const std::vector<std::pair<std::string, int64_t>> bad = {
      {"strides", 0},
      {"strides", -1},
      {"strides", kInt64Max},
      {"dilations", 0},
      {"dilations", kInt64Max},
      {"kernel_shape", 0},
      {"kernel_shape", -3},
      {"kernel_shape", kInt64Max},
      {"pads", -1},
      {"pads", kInt64Max},
      {"pads", std::numeric_limits<int64_t>::min()}};
  for (const auto& op : ops) {
    for (const auto& [name, value] : bad) {
      ModelBuilder b;
      b.input("x", kFloat, {1, 4, 8, 8}).weights("w", {4, 4, 3, 3}).output("y", kFloat);
      bool conv = op.rfind("Conv", 0) == 0;
      auto& node = b.node(
          op, conv ? std::vector<std::string>{"x", "w"} : std::vector<std::string>{"x"}, {"y"});
      size_t count = name == "pads" ? 4 : 2;
      if (name != "kernel_shape" && !conv)
        ModelBuilder::attr(node, "kernel_shape", std::vector<int64_t>{3, 3});
      std::vector<int64_t> values(count, 1);
      values[0] = value;
      ModelBuilder::attr(node, name, values);
      std::string message = import_error(b.bytes());
      EXPECT_NE(message.find("attribute " + name), std::string::npos) << op << ": " << message;
    }
  }
}

TEST(OnnxErrors, BlocksizeAndSplitOutputs) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    ModelBuilder b;
    b.input("x", kFloat, {1, 4, 8, 8}).output("y", kFloat);
    ModelBuilder::attr(b.node(op, {"x"}, {"y"}), "blocksize", int64_t{0});
    expect_all(import_error(b.bytes()), {"attribute blocksize = 0"});
  }
}

TEST(OnnxErrors, InitializerShapeOverflowIsAnError) {
  ModelBuilder b;
  b.input("x", kFloat, {2, 4}).floats("w", {4, kInt64Max}, {1.0F, 2.0F}).output("y", kFloat);
  b.node("MatMul", {"x", "w"}, {"y"});
  expect_all(import_error(b.bytes()), {"initializer w", "[4 9223372036854775807]", "2^40"});
  ModelBuilder negative;
  negative.input("x", kFloat, {2, 4}).floats("w", {4, -2}, {1.0F}).output("y", kFloat);
  negative.node("MatMul", {"x", "w"}, {"y"});
  expect_all(import_error(negative.bytes()), {"initializer w has a negative dimension"});
}

TEST(OnnxErrors, BatchNormalizationParameterLengths) {
  ModelBuilder b;
  b.input("x", kFloat, {1, 4, 2, 2}).weights("scale", {3}).weights("bias", {4});
  b.weights("mean", {4}).weights("var", {4}).output("y", kFloat);
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
  expect_all(import_error(b.bytes()),
             {"op BatchNormalization", "scale scale has shape [3], expected [4]"});
}

TEST(OnnxErrors, AxesOutOfRange) {
  ModelBuilder concat;
  concat.input("a", kFloat, {2, 3}).input("b", kFloat, {2, 3}).output("y", kFloat);
  ModelBuilder::attr(concat.node("Concat", {"a", "b"}, {"y"}), "axis", int64_t{7});
  expect_all(import_error(concat.bytes()),
             {"op Concat", "attribute axis = 7 is out of range for an input of rank 2"});
  ModelBuilder softmax;
  softmax.input("x", kFloat, {2, 3}).output("y", kFloat);
  ModelBuilder::attr(softmax.node("Softmax", {"x"}, {"y"}), "axis", int64_t{10});
  expect_all(import_error(softmax.bytes()), {"op Softmax", "attribute axis = 10"});
}

TEST(OnnxErrors, GatherIndicesOutOfRange) {
  ModelBuilder b;
  b.input("x", kFloat, {10, 4}).ints("idx", {2}, {1, 12}).output("y", kFloat);
  b.node("Gather", {"x", "idx"}, {"y"});
  expect_all(import_error(b.bytes()),
             {"op Gather", "index 12 (indices idx) is out of range for axis 0 of size 10"});
}

TEST(OnnxErrors, ReshapeTargets) {
  auto reshape_error = [](const std::vector<int64_t>& target, int64_t allow_zero) {
    ModelBuilder b;
    b.input("x", kFloat, {2, 4}).ints("s", {static_cast<int64_t>(target.size())}, target);
    b.output("y", kFloat);
    auto& node = b.node("Reshape", {"x", "s"}, {"y"});
    if (allow_zero != 0) ModelBuilder::attr(node, "allowzero", allow_zero);
    return import_error(b.bytes());
  };
  expect_all(reshape_error({-5, 0}, 0), {"op Reshape", "Reshape target [-5 0] holds -5"});
  expect_all(reshape_error({-1, -1}, 0), {"holds more than one -1"});
  expect_all(reshape_error({0, 0, 0}, 0),
             {"copies dimension 2 (a 0) of input [2 4], which has rank 2"});
  expect_all(reshape_error({0, -1}, 1), {"both 0 and -1 with allowzero = 1"});
  expect_all(reshape_error({3, 3}, 0), {"cannot reshape [2 4]", "to [3 3]"});
}

TEST(OnnxErrors, DuplicateNames) {
  ModelBuilder inputs;
  inputs.input("x", kFloat, {2}).input("x", kFloat, {2}).output("y", kFloat);
  inputs.node("Relu", {"x"}, {"y"});
  expect_all(import_error(inputs.bytes()), {"graph input x is declared twice"});
  ModelBuilder twice;
  twice.input("x", kFloat, {2}).output("y", kFloat);
  twice.node("Relu", {"x"}, {"y"});
  twice.node("Sigmoid", {"x"}, {"y"});
  expect_all(import_error(twice.bytes()), {"op Sigmoid",
                                           "output y is already defined by an "
                                           "earlier node"});
  ModelBuilder shadow;
  shadow.input("x", kFloat, {2}).weights("y", {2}).output("y", kFloat);
  shadow.node("Relu", {"x"}, {"y"});
  expect_all(import_error(shadow.bytes()), {"output y is already defined by an initializer"});
}

// fuzz_onnx_import: a node reading a value nothing defines made ONNX's shape inference SEGV
// (fuzz/corpus/onnx_import/regress-shape-inference-undefined-input.onnx).
TEST(OnnxErrors, UndefinedValuesAreRefusedBeforeShapeInference) {
  ModelBuilder dangling;
  dangling.output("y", ::onnx::TensorProto::INT64);
  dangling.node("Shape", {"x"}, {"y"});
  expect_all(import_error(dangling.bytes()), {"op Shape", "unknown value name x"});
  ModelBuilder missing_output;
  missing_output.input("x", kFloat, {2}).output("z", kFloat);
  missing_output.node("Relu", {"x"}, {"y"});
  expect_all(import_error(missing_output.bytes()), {"unknown value name z", "a graph output"});
}

TEST(OnnxErrors, IrVersionAndOpsetRange) {
  ::onnx::ModelProto model = small_model();
  model.set_ir_version(99);
  expect_all(import_error(bytes_of(model)),
             {"IR version 99 is not supported", "IR versions 3 to 14"});
  for (int64_t opset : {int64_t{1}, int64_t{99}}) {
    model = small_model();
    model.mutable_opset_import(0)->set_version(opset);
    expect_all(import_error(bytes_of(model)),
               {"opset " + std::to_string(opset) + " is not supported", "11 to 21"});
  }
}

TEST(OnnxErrors, ProtobufLogLinesAreCaptured) {
  testing::internal::CaptureStderr();
  std::string captured;
  {
    ProtobufLogCapture log;
    GOOGLE_LOG(ERROR) << "exceeded maximum protobuf size of 2GB: 1";
    captured = log.messages();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(captured, "exceeded maximum protobuf size of 2GB: 1");
}

// Every input that once crashed the importer (fuzz/corpus/onnx_import/regress-*, found by
// fuzz_onnx_import) is now one clear error: an undefined value, and a mutated ShuffleNet whose
// Reshape target made ONNX 1.12's data propagation dereference a null type.
TEST(OnnxErrors, FuzzRegressionsAreClearErrors) {
  const std::filesystem::path corpus =
      saturate::tests::source_dir() / "fuzz" / "corpus" / "onnx_import";
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    if (entry.path().filename().string().rfind("regress-", 0) != 0) continue;
    ++seen;
    std::ifstream file(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), {});
    SCOPED_TRACE(entry.path().filename().string());
    EXPECT_FALSE(import_error(bytes).empty());
  }
  EXPECT_GE(seen, 2u);
}
