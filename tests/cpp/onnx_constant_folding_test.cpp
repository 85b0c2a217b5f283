// Import-time constant folding: the shape arithmetic, masks and index tensors exporters write
// are evaluated once; values of every element type flow through the graph as typed nodes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>
#include <utility>

#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "onnx/fold_kernels.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx_model_builder.h"
#include "onnx_test_support.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::onnx;
using ::onnx::TensorProto;
using onnx_testing::import_error;
using onnx_testing::ModelBuilder;

namespace {

constexpr int32_t kFloat = TensorProto::FLOAT;
constexpr int32_t kInt64 = TensorProto::INT64;

HostTensor ints(const ir::Dims& dims, const std::vector<int64_t>& values) {
  HostTensor t;
  t.elem_type = kInt64;
  t.dims = dims;
  t.ints = values;
  return t;
}

HostTensor reals(const ir::Dims& dims, const std::vector<double>& values) {
  HostTensor t;
  t.elem_type = kFloat;
  t.dims = dims;
  t.reals = values;
  return t;
}

// Folds one node of `op` on the given inputs.
HostTensor fold(const std::string& op, const std::vector<const HostTensor*>& inputs,
                const std::function<void(::onnx::NodeProto&)>& set_attrs = {}, int64_t opset = 17) {
  ::onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name("n");
  node.add_output("y");
  if (set_attrs) set_attrs(node);
  FoldContext context;
  context.opset = opset;
  auto result = fold_node(node, inputs, context);
  if (!result) throw std::runtime_error(op + " did not fold");
  return result->front();
}

int count_ops(const ir::Graph& graph, ir::OpKind op) {
  return static_cast<int>(graph.nodes_of(op).size());
}

}  // namespace

TEST(FoldKernels, SliceClampsNegativeAndHugeIndices) {
  HostTensor x = ints({6}, {0, 1, 2, 3, 4, 5});
  const int64_t big = std::numeric_limits<int64_t>::max();
  // [-4 : INT64_MAX] -> 2 3 4 5 (the end "to the end" the TorchScript exporter writes).
  HostTensor starts = ints({1}, {-4});
  HostTensor ends = ints({1}, {big});
  EXPECT_EQ(fold("Slice", {&x, &starts, &ends}).ints, (std::vector<int64_t>{2, 3, 4, 5}));
  // Reversed with step -2 from the end to INT64_MIN: 5 3 1.
  HostTensor rstart = ints({1}, {-1});
  HostTensor rend = ints({1}, {std::numeric_limits<int64_t>::min()});
  HostTensor axes = ints({1}, {0});
  HostTensor steps = ints({1}, {-2});
  EXPECT_EQ(fold("Slice", {&x, &rstart, &rend, &axes, &steps}).ints,
            (std::vector<int64_t>{5, 3, 1}));
  // Empty when start is past the end.
  HostTensor s5 = ints({1}, {5});
  HostTensor e2 = ints({1}, {2});
  EXPECT_TRUE(fold("Slice", {&x, &s5, &e2}).ints.empty());
}

TEST(FoldKernels, IntegerArithmeticFollowsOnnxRuntime) {
  HostTensor a = ints({4}, {7, -7, 7, -7});
  HostTensor b = ints({4}, {2, 2, -2, -2});
  EXPECT_EQ(fold("Div", {&a, &b}).ints, (std::vector<int64_t>{3, -3, -3, 3}));  // truncation
  EXPECT_EQ(fold("Mod", {&a, &b}).ints, (std::vector<int64_t>{1, 1, -1, -1}));  // divisor's sign
  EXPECT_EQ(fold("Mod", {&a, &b}, [](auto& n) { ModelBuilder::attr(n, "fmod", int64_t{1}); }).ints,
            (std::vector<int64_t>{1, -1, 1, -1}));  // dividend's sign
  HostTensor zero = ints({}, {0});
  EXPECT_THROW(fold("Div", {&a, &zero}), Error);
}

TEST(FoldKernels, RangeCastAndComparisons) {
  HostTensor start = ints({}, {0});
  HostTensor limit = ints({}, {5});
  HostTensor delta = ints({}, {2});
  HostTensor range = fold("Range", {&start, &limit, &delta});
  EXPECT_EQ(range.ints, (std::vector<int64_t>{0, 2, 4}));
  HostTensor f = reals({3}, {-1.7, 0.2, 2.9});
  HostTensor to_int =
      fold("Cast", {&f}, [](auto& n) { ModelBuilder::attr(n, "to", int64_t{kInt64}); });
  EXPECT_EQ(to_int.ints, (std::vector<int64_t>{-1, 0, 2}));  // toward zero
  HostTensor three = ints({}, {3});
  HostTensor less = fold("Less", {&range, &three});
  EXPECT_EQ(less.elem_type, TensorProto::BOOL);
  EXPECT_EQ(less.ints, (std::vector<int64_t>{1, 1, 0}));
}

TEST(FoldKernels, CausalMaskFromTriluAndWhere) {
  // The mask decoders build: 0 on and below the diagonal, a large negative value above.
  HostTensor shape = ints({2}, {3, 3});
  HostTensor ones = fold("ConstantOfShape", {&shape}, [](auto& n) {
    TensorProto value;
    value.set_data_type(kFloat);
    value.add_dims(1);
    value.add_float_data(1.0F);
    ModelBuilder::attr(n, "value", value);
  });
  HostTensor one = ints({}, {1});
  HostTensor upper = fold("Trilu", {&ones, &one});  // strictly above the diagonal
  EXPECT_EQ(upper.reals, (std::vector<double>{0, 1, 1, 0, 0, 1, 0, 0, 0}));
  HostTensor zero = reals({}, {0.0});
  HostTensor above = fold("Greater", {&upper, &zero});
  HostTensor neg = reals({}, {-1e9});
  HostTensor mask = fold("Where", {&above, &neg, &zero});
  EXPECT_EQ(mask.reals[1], static_cast<double>(static_cast<float>(-1e9)));
  EXPECT_EQ(mask.reals[3], 0.0);
}

TEST(FoldKernels, GatherExpandTileScatterCumSum) {
  HostTensor data = ints({3, 2}, {0, 1, 10, 11, 20, 21});
  HostTensor index = ints({2}, {-1, 0});
  EXPECT_EQ(fold("Gather", {&data, &index}).ints, (std::vector<int64_t>{20, 21, 0, 1}));
  HostTensor bad = ints({1}, {3});
  try {
    fold("Gather", {&data, &bad});
    ADD_FAILURE() << "expected an out-of-range error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("index 3 is out of range"), std::string::npos);
  }
  HostTensor row = ints({1, 2}, {4, 5});
  HostTensor shape = ints({2}, {2, 1});
  EXPECT_EQ(fold("Expand", {&row, &shape}).dims, (ir::Dims{2, 2}));
  HostTensor reps = ints({2}, {2, 1});
  EXPECT_EQ(fold("Tile", {&row, &reps}).ints, (std::vector<int64_t>{4, 5, 4, 5}));
  HostTensor where = ints({1, 1}, {1});
  HostTensor updates = ints({1, 2}, {-1, -2});
  EXPECT_EQ(fold("ScatterND", {&data, &where, &updates}).ints,
            (std::vector<int64_t>{0, 1, -1, -2, 20, 21}));
  HostTensor mask = ints({4}, {1, 1, 0, 1});
  HostTensor axis = ints({}, {0});
  EXPECT_EQ(fold("CumSum", {&mask, &axis}).ints, (std::vector<int64_t>{1, 2, 2, 3}));
}

TEST(FoldKernels, ReductionsWithInputAxes) {
  HostTensor x = reals({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor axes = ints({1}, {1});
  EXPECT_EQ(fold("ReduceSum", {&x, &axes}).reals, (std::vector<double>{6, 15}));
  HostTensor mean = fold(
      "ReduceMean", {&x, &axes}, [](auto& n) { ModelBuilder::attr(n, "keepdims", int64_t{0}); },
      18);
  EXPECT_EQ(mean.dims, (ir::Dims{2}));
  EXPECT_EQ(mean.reals, (std::vector<double>{2, 5}));
  HostTensor max = fold(
      "ReduceMax", {&x}, [](auto& n) { ModelBuilder::attr(n, "axes", std::vector<int64_t>{0}); },
      13);
  EXPECT_EQ(max.reals, (std::vector<double>{4, 5, 6}));
}

TEST(FoldKernels, UnknownOperatorsAndTypesAreLeftAlone) {
  HostTensor x = reals({2}, {1, 2});
  ::onnx::NodeProto node;
  node.set_op_type("Softmax");
  node.add_output("y");
  EXPECT_FALSE(fold_node(node, {&x}, FoldContext{}).has_value());
  node.set_op_type("Cast");
  ModelBuilder::attr(node, "to", int64_t{TensorProto::COMPLEX64});  // no complex numbers
  EXPECT_FALSE(fold_node(node, {&x}, FoldContext{}).has_value());
}

TEST(FoldKernels, SixteenBitFloatsFoldRoundedToTheirType) {
  HostTensor x = reals({2}, {1.0 / 3.0, 70000.0});
  for (auto [type, third] : {std::pair{TensorProto::FLOAT16, 0.333251953125},
                             std::pair{TensorProto::BFLOAT16, 0.333984375}}) {
    ::onnx::NodeProto node;
    node.set_op_type("Cast");
    node.add_output("y");
    ModelBuilder::attr(node, "to", int64_t{type});
    auto folded = fold_node(node, {&x}, FoldContext{});
    ASSERT_TRUE(folded.has_value());
    const HostTensor& y = folded->front();
    EXPECT_EQ(y.elem_type, type);
    EXPECT_EQ(y.reals[0], third);
    // float16's largest finite value is 65504: 70000 overflows to infinity; bfloat16 holds it.
    if (type == TensorProto::FLOAT16) {
      EXPECT_TRUE(std::isinf(y.reals[1]));
    } else {
      EXPECT_EQ(y.reals[1], 70144.0);
    }
  }
}

TEST(ConstantFolding, ShapeArithmeticBeforeAReshapeFolds) {
  // x.view(x.size(0), -1) as the TorchScript exporter writes it.
  ModelBuilder b;
  b.input("x", kFloat, {2, 3, 4}).output("y", kFloat);
  b.ints("zero", {}, {0}).ints("minus_one", {1}, {-1}).ints("axes", {1}, {0});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"batch"});
  b.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  ModelBuilder::attr(b.node("Concat", {"batch1", "minus_one"}, {"target"}), "axis", int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(model.folded_nodes, 4);
  EXPECT_EQ(model.folded_by_op.at("Shape"), 1);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Opaque), 0);
  ASSERT_EQ(count_ops(model.graph, ir::OpKind::Reshape), 1);
  EXPECT_EQ(model.graph.type(model.graph.outputs()[0].value).dims, (ir::Dims{2, 12}));
}

TEST(ConstantFolding, TokenIdsFlowAsTypedValues) {
  // An int64 input, an embedding lookup, then float arithmetic the IR maps.
  ModelBuilder b;
  b.input("input_ids", kInt64, {1, 8}).output("y", kFloat);
  b.weights("embedding", {50, 16}).weights("w", {16, 4});
  b.node("Gather", {"embedding", "input_ids"}, {"embedded"});
  b.node("MatMul", {"embedded", "w"}, {"y"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  const ir::Graph& graph = model.graph;
  ASSERT_EQ(graph.inputs().size(), 1U);
  EXPECT_EQ(graph.node(graph.inputs()[0]).outputs[0].dtype, ir::DType::I64);
  ASSERT_EQ(count_ops(graph, ir::OpKind::Opaque), 1);
  EXPECT_EQ(count_ops(graph, ir::OpKind::MatMul), 1);
  // Export writes the int64 input back.
  ::onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(export_onnx(graph, model)));
  EXPECT_EQ(written.graph().input(0).type().tensor_type().elem_type(), kInt64);
}

TEST(ConstantFolding, FloatRulesNeverSeeIntegerValues) {
  // Int64 arithmetic on a graph input stays opaque: the IR's add is for floats.
  ModelBuilder b;
  b.input("ids", kInt64, {4}).output("y", kInt64);
  b.ints("one", {}, {1});
  b.node("Add", {"ids", "one"}, {"y"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Add), 0);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Opaque), 1);
  EXPECT_THROW(ir::infer_types(
                   ir::OpKind::Add,
                   {ir::TensorType{ir::DType::I64, {4}}, ir::TensorType{ir::DType::I64, {4}}}, {}),
               Error);
}

TEST(ConstantFolding, LargeWeightArithmeticIsTheIRsButUnmappedUnaryOperatorsFold) {
  // 2^17 elements, past the float input limit: the Mul stays an IR node (export folds it), the
  // Cos has no IR operator and is folded, so its value is an initializer the IR can read.
  ModelBuilder b;
  b.input("x", kFloat, {512, 256}).output("y", kFloat);
  b.weights("angles", {512, 256}).weights("w", {512, 256}).floats("two", {}, {2.0F});
  b.node("Cos", {"angles"}, {"cos"});
  b.node("Mul", {"w", "two"}, {"scaled"});
  b.node("Mul", {"x", "cos"}, {"a"});
  b.node("Add", {"a", "scaled"}, {"y"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(model.folded_by_op.count("Cos"), 1U);
  EXPECT_EQ(model.folded_by_op.count("Mul"), 0U);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Opaque), 0);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Mul) + count_ops(model.graph, ir::OpKind::EwMul), 2);
}

TEST(ConstantFolding, EmptySlicesAreFoldedAndConcatDropsThem) {
  // A partial rotary embedding with the whole head rotated, as the TorchScript exporter writes
  // Phi-3's: the pass-through slice x[..., 8:] is empty and concatenated after the rotated half.
  ModelBuilder b;
  b.input("x", kFloat, {1, 2, 8}).output("y", kFloat).output("z", kFloat);
  b.ints("start", {1}, {8}).ints("end", {1}, {std::numeric_limits<int64_t>::max()});
  b.ints("axes", {1}, {2});
  b.node("Slice", {"x", "start", "end", "axes"}, {"pass"});
  b.node("Neg", {"pass"}, {"neg_pass"});
  b.node("Relu", {"x"}, {"rotated"});
  ModelBuilder::attr(b.node("Concat", {"rotated", "neg_pass"}, {"y"}), "axis", int64_t{-1});
  ModelBuilder::attr(b.node("Concat", {"pass", "x", "rotated"}, {"z"}), "axis", int64_t{-1});
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(model.folded_by_op.at("Slice"), 1);
  EXPECT_EQ(model.folded_by_op.at("Neg"), 1);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Opaque), 0);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Slice), 0);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Concat), 1);  // z's two non-empty operands
  const auto& outputs = model.graph.outputs();
  ASSERT_EQ(outputs.size(), 2U);
  EXPECT_EQ(model.graph.type(outputs[0].value).dims, (ir::Dims{1, 2, 8}));
  EXPECT_EQ(model.graph.type(outputs[1].value).dims, (ir::Dims{1, 2, 16}));
}

TEST(ConstantFolding, LongChainsOfShapeDependentReshapesFold) {
  // Each Reshape's target is the Shape of the Reshape before it (with its first two axes merged
  // and split again), so every link needs one more round of shape inference: 40 links, as a
  // Swin transformer's window partitions chain them.
  ModelBuilder b;
  b.input("x", kFloat, {2, 3, 4}).output("y", kFloat);
  b.ints("lead", {1}, {0}).ints("lead_end", {1}, {1}).ints("rest", {1}, {1});
  b.ints("end", {1}, {std::numeric_limits<int64_t>::max()});
  std::string value = "x";
  constexpr int kLinks = 40;
  for (int k = 0; k < kLinks; ++k) {
    std::string id = std::to_string(k);
    b.node("Shape", {value}, {"shape" + id});
    b.node("Slice", {"shape" + id, "rest", "end"}, {"tail" + id});
    b.node("Slice", {"shape" + id, "lead", "lead_end"}, {"head" + id});
    ModelBuilder::attr(b.node("Concat", {"head" + id, "tail" + id}, {"target" + id}), "axis",
                       int64_t{0});
    std::string next = k + 1 == kLinks ? "y" : "v" + id;
    b.node("Reshape", {value, "target" + id}, {next});
    value = next;
  }
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(model.folded_by_op.at("Shape"), kLinks);
  EXPECT_EQ(count_ops(model.graph, ir::OpKind::Opaque), 0);
  EXPECT_EQ(model.graph.type(model.graph.outputs()[0].value).dims, (ir::Dims{2, 3, 4}));
}

TEST(ConstantFolding, FoldingPastTheLimitIsOneClearError) {
  ModelBuilder b;
  b.input("x", kFloat, {2}).output("y", kFloat);
  b.ints("huge", {2}, {100000, 100000});
  b.node("ConstantOfShape", {"huge"}, {"mask"});
  b.node("Add", {"x", "mask"}, {"y"});
  std::string message = import_error(b.bytes());
  EXPECT_NE(message.find("mask_node"), std::string::npos) << message;
  EXPECT_NE(message.find("folding limit"), std::string::npos) << message;
}

TEST(ConstantFolding, GatherOutOfRangeInConstantsNamesTheNode) {
  ModelBuilder b;
  b.input("x", kFloat, {2}).output("y", kFloat);
  b.weights("table", {4, 2}).ints("index", {}, {9});
  b.node("Gather", {"table", "index"}, {"row"});
  b.node("Add", {"x", "row"}, {"y"});
  std::string message = import_error(b.bytes());
  EXPECT_NE(message.find("row_node"), std::string::npos) << message;
  EXPECT_NE(message.find("out of range"), std::string::npos) << message;
}

TEST(ConstantFolding, DynamicInputsAreSymbolsAndPinsMakeThemStatic) {
  ModelBuilder b;
  b.input("input_ids", kInt64, {1, -1}, "sequence").input("mask", kInt64, {-1, -1}, "batch");
  b.output("y", kInt64);
  b.node("Add", {"input_ids", "mask"}, {"y"});
  OnnxModel dynamic = import_onnx_bytes(b.bytes(), "m.onnx");
  EXPECT_EQ(ir::to_string(dynamic.graph.type(*dynamic.graph.find_value("input_ids")).dims),
            "[1 sequence]");
  ImportOptions options;
  options.input_shapes["input_ids"] = {1, 8};
  options.input_shapes["mask"] = {1, 8};  // mask is [batch, batch]: one name, two sizes
  EXPECT_NE(import_error(b.bytes(), options).find("batch both 1 and 8"), std::string::npos);
  options.input_shapes["mask"] = {1, 1};
  OnnxModel model = import_onnx_bytes(b.bytes(), "m.onnx", options);
  EXPECT_EQ(model.graph.type(model.graph.outputs()[0].value).dims, (ir::Dims{1, 8}));
  options.input_shapes["input_ids"] = {2, 8};  // contradicts the fixed 1
  EXPECT_NE(import_error(b.bytes(), options).find("fixes it at 1"), std::string::npos);
  options.input_shapes = {{"nonexistent", {1}}};
  EXPECT_NE(import_error(b.bytes(), options).find("not a graph input"), std::string::npos);
  EXPECT_EQ(parse_input_shape("input_ids=1,128").second, (ir::Dims{1, 128}));
  EXPECT_THROW(parse_input_shape("input_ids=1,-2"), Error);
  EXPECT_THROW(parse_input_shape("input_ids"), Error);
}

TEST(ConstantFolding, IntegerFedWhereAFloatIsRequiredNamesTheNode) {
  ModelBuilder b;
  b.input("ids", kInt64, {2, 4}).output("y", kFloat);
  b.weights("w", {4, 4});
  b.node("MatMul", {"ids", "w"}, {"y"});
  std::string message = import_error(b.bytes());
  EXPECT_NE(message.find("y_node"), std::string::npos) << message;
  EXPECT_NE(message.find("INT64"), std::string::npos) << message;
}
