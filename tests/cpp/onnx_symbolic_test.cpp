// Models with dynamic axes: dim_params import as symbols, the exporters' shape arithmetic folds
// over them, and export writes the axes back under their names with Reshape targets valid for
// every size.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "ir/symbolic_dim.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx_model_builder.h"
#include "onnx_test_support.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::onnx;
using ::onnx::TensorProto;
using onnx_testing::ModelBuilder;

namespace {

constexpr int32_t kFloat = TensorProto::FLOAT;

int64_t dim(const char* text) {
  return ir::parse_dim(text).value();
}

// x: [batch, sequence, 16] flattened to rows through Shape arithmetic (as exporters write it),
// multiplied by a weight and reshaped back to [batch, sequence, 8].
ModelBuilder flatten_project_unflatten() {
  ModelBuilder b;
  b.dynamic_input("x", kFloat, {"batch", "sequence", "16"});
  b.output("y", kFloat);
  b.weights("w", {16, 8});
  b.ints("zero", {1}, {0}).ints("one", {1}, {1}).ints("sixteen", {1}, {16});
  b.ints("eight", {1}, {8});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"b"});
  b.node("Gather", {"shape", "one"}, {"s"});
  b.node("Mul", {"b", "s"}, {"rows"});
  ModelBuilder::attr(b.node("Concat", {"rows", "sixteen"}, {"flat_shape"}), "axis", int64_t{0});
  b.node("Reshape", {"x", "flat_shape"}, {"flat"});
  b.node("MatMul", {"flat", "w"}, {"projected"});
  ModelBuilder::attr(b.node("Concat", {"b", "s", "eight"}, {"out_shape"}), "axis", int64_t{0});
  b.node("Reshape", {"projected", "out_shape"}, {"y"});
  return b;
}

std::vector<std::string> dims_as_written(const ::onnx::ValueInfoProto& info) {
  std::vector<std::string> out;
  for (const auto& d : info.type().tensor_type().shape().dim()) {
    out.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.dim_param());
  }
  return out;
}

}  // namespace

TEST(SymbolicImport, DimParamsBecomeSymbolsAndShapeArithmeticFolds) {
  OnnxModel model = import_onnx_bytes(flatten_project_unflatten().bytes(), "dynamic.onnx");
  const ir::Graph& g = model.graph;
  EXPECT_EQ(g.type(*g.find_value("x")).dims, (ir::Dims{dim("batch"), dim("sequence"), 16}));
  EXPECT_EQ(g.type(*g.find_value("flat")).dims, (ir::Dims{dim("batch*sequence"), 16}));
  EXPECT_EQ(g.type(g.outputs()[0].value).dims, (ir::Dims{dim("batch"), dim("sequence"), 8}));
  // Both reshapes are IR reshapes (the matmul sees real shapes), not opaque nodes.
  int reshapes = 0;
  for (ir::NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op == ir::OpKind::Reshape) ++reshapes;
  }
  EXPECT_EQ(reshapes, 2);
}

TEST(SymbolicImport, ExportKeepsTheAxesAndWritesTargetsForEverySize) {
  OnnxModel model = import_onnx_bytes(flatten_project_unflatten().bytes(), "dynamic.onnx");
  ::onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(export_onnx(model.graph, model)));
  EXPECT_EQ(dims_as_written(written.graph().input(0)),
            (std::vector<std::string>{"batch", "sequence", "16"}));
  EXPECT_EQ(dims_as_written(written.graph().output(0)),
            (std::vector<std::string>{"batch", "sequence", "8"}));
  // [batch*sequence, 16] -> [batch, sequence, 8] has two symbolic dims that are not the input's:
  // its target is computed from Shape.
  bool computed_target = false;
  for (const auto& node : written.graph().node()) computed_target |= node.op_type() == "Shape";
  EXPECT_TRUE(computed_target);
  // Reimported, the types are the same symbols.
  OnnxModel again = import_onnx_bytes(written.SerializeAsString(), "again.onnx");
  EXPECT_EQ(again.graph.type(again.graph.outputs()[0].value).dims,
            (ir::Dims{dim("batch"), dim("sequence"), 8}));
}

TEST(SymbolicImport, UnnamedDynamicDimsGetSymbolsOfTheirOwn) {
  ModelBuilder b;
  b.input("x", kFloat, {-1, 4}, "");
  b.output("y", kFloat);
  b.node("Relu", {"x"}, {"y"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "unnamed.onnx");
  int64_t first = model.graph.type(*model.graph.find_value("x")).dims[0];
  EXPECT_TRUE(ir::is_symbolic(first));
  EXPECT_NE(ir::dim_to_string(first).find("x_dim0"), std::string::npos);
}

TEST(SymbolicImport, CacheLengthsMayBeEmpty) {
  ModelBuilder b;
  b.dynamic_input("past_key", kFloat, {"batch", "4", "past_sequence_length", "8"});
  b.dynamic_input("key", kFloat, {"batch", "4", "sequence_length", "8"});
  b.output("present", kFloat);
  auto& concat = b.node("Concat", {"past_key", "key"}, {"present"});
  ModelBuilder::attr(concat, "axis", int64_t{2});
  OnnxModel model = import_onnx_bytes(b.bytes(), "cache.onnx");
  int64_t total = model.graph.type(model.graph.outputs()[0].value).dims[2];
  EXPECT_EQ(total, dim("past_sequence_length + sequence_length"));
  EXPECT_EQ(ir::symbol_lower_bound(*ir::find_symbol("past_sequence_length")), 0);
  EXPECT_EQ(ir::dim_least_value(total), 1);
  ::onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(export_onnx(model.graph, model)));
  EXPECT_EQ(dims_as_written(written.graph().output(0))[2],
            "past_sequence_length + sequence_length");
}

// x [batch, 4, 6] viewed as rows through a target computed from Shape, and back to x's own
// shape the same way (the dynamo exporter's key path in sequence-first attention): import reads
// x itself, with no reshape left; a chain to a new shape is one reshape from x.
TEST(SymbolicImport, ReshapeChainsComposeAndANoOpReshapeIsItsInput) {
  ModelBuilder b;
  b.dynamic_input("x", kFloat, {"batch", "4", "6"});
  b.output("y", kFloat);
  b.output("z", kFloat);
  b.ints("minus_one_six", {2}, {-1, 6}).ints("flat24", {2}, {-1, 24});
  b.node("Reshape", {"x", "minus_one_six"}, {"rows"});
  b.node("Shape", {"x"}, {"x_shape"});
  b.node("Reshape", {"rows", "x_shape"}, {"back"});
  b.node("Relu", {"back"}, {"y"});
  b.node("Reshape", {"rows", "flat24"}, {"flat"});
  b.node("Relu", {"flat"}, {"z"});
  OnnxModel model = import_onnx_bytes(b.bytes(), "chain.onnx");
  const ir::Graph& g = model.graph;
  const ir::ValueRef x = *g.find_value("x");
  const ir::Node& y = g.node(g.outputs()[0].value.node);
  ASSERT_EQ(y.op, ir::OpKind::Relu);
  EXPECT_EQ(y.inputs.front(), x);
  const ir::Node& z = g.node(g.outputs()[1].value.node);
  ASSERT_EQ(z.op, ir::OpKind::Relu);
  const ir::Node& flat = g.node(z.inputs.front().node);
  ASSERT_EQ(flat.op, ir::OpKind::Reshape);
  EXPECT_EQ(flat.inputs.front(), x);
  EXPECT_EQ(g.type(z.inputs.front()).dims, (ir::Dims{dim("batch"), 24}));
}
