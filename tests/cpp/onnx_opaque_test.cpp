// Opaque ONNX operators: imported with their types, kept by the optimizer (with everything
// downstream), restored exactly on export, refused by the reference interpreter.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "eqsat/optimizer.h"
#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "onnx/opaque_capsule.h"
#include "onnx_test_support.h"
#include "runtime/interpreter.h"
#include "source_dir.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::onnx;

namespace {

void set_type(::onnx::ValueInfoProto* info, const std::string& name, std::vector<int64_t> dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
}

::onnx::NodeProto* add_node(::onnx::GraphProto* graph, const std::string& op,
                            std::vector<std::string> inputs, std::vector<std::string> outputs) {
  auto* node = graph->add_node();
  node->set_op_type(op);
  for (auto& name : inputs) node->add_input(name);
  for (auto& name : outputs) node->add_output(name);
  return node;
}

// x -> MatMul w -> com.example:Twin (two outputs, attribute k) -> Relu(a) + b, and a Tanh of b.
std::string model_with_a_twin() {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  auto* custom = model.add_opset_import();
  custom->set_domain("com.example");
  custom->set_version(1);
  auto* graph = model.mutable_graph();
  graph->set_name("twin");
  set_type(graph->add_input(), "x", {2, 4});
  auto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  for (int i = 0; i < 16; ++i) w->add_float_data(0.1F * static_cast<float>(i % 5) - 0.2F);
  add_node(graph, "MatMul", {"x", "w"}, {"m"});
  auto* twin = add_node(graph, "Twin", {"m"}, {"a", "b"});
  twin->set_domain("com.example");
  auto* k = twin->add_attribute();
  k->set_name("k");
  k->set_type(::onnx::AttributeProto::INT);
  k->set_i(3);
  add_node(graph, "Relu", {"a"}, {"ra"});
  add_node(graph, "Add", {"ra", "b"}, {"y"});
  add_node(graph, "Tanh", {"b"}, {"z"});
  set_type(graph->add_value_info(), "a", {2, 4});
  set_type(graph->add_value_info(), "b", {2, 4});
  set_type(graph->add_output(), "y", {2, 4});
  set_type(graph->add_output(), "z", {2, 4});
  return model.SerializeAsString();
}

eqsat::RuleSet library_rules() {
  eqsat::RuleSet set;
  for (const auto& entry :
       std::filesystem::directory_iterator(saturate::tests::source_dir() / "rules")) {
    if (entry.path().extension() == ".rules") set.append(eqsat::load_rules(entry.path().string()));
  }
  return set;
}

}  // namespace

TEST(OnnxOpaque, ImportKeepsTypeAttributesAndOutputs) {
  OnnxModel model = import_onnx_bytes(model_with_a_twin(), "twin.onnx");
  std::vector<ir::NodeId> opaque = model.graph.nodes_of(ir::OpKind::Opaque);
  ASSERT_EQ(opaque.size(), 1u);
  const ir::Node& node = model.graph.node(opaque[0]);
  EXPECT_EQ(node.attrs.get_string("op_type"), "Twin");
  EXPECT_EQ(node.attrs.get_string("domain"), "com.example");
  EXPECT_EQ(node.attrs.get_string("output_types"), "f32[2 4];f32[2 4]");
  EXPECT_EQ(node.outputs.size(), 2u);
  EXPECT_EQ(model.domain_opsets.at("com.example"), 1);
  // The text form carries it too.
  EXPECT_TRUE(ir::parse_text(ir::write_text(model.graph)) == model.graph);
}

TEST(OnnxOpaque, InterpreterRefusesItClearly) {
  OnnxModel model = import_onnx_bytes(model_with_a_twin(), "twin.onnx");
  runtime::Interpreter interpreter;
  try {
    interpreter.run(model.graph, runtime::random_feeds(model.graph, 1));
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot evaluate opaque ONNX operator Twin"),
              std::string::npos)
        << error.what();
  }
}

TEST(OnnxOpaque, CostModelPricesItByBytesMoved) {
  OnnxModel model = import_onnx_bytes(model_with_a_twin(), "twin.onnx");
  cost::AnalyticCostModel analytic;
  cost::GraphCost cost = cost::graph_cost(model.graph, analytic);
  ir::NodeId opaque = model.graph.nodes_of(ir::OpKind::Opaque)[0];
  EXPECT_GT(cost.per_node[opaque], 0);
}

TEST(OnnxOpaque, OptimizerKeepsItAndExportRestoresIt) {
  OnnxModel model = import_onnx_bytes(model_with_a_twin(), "twin.onnx");
  cost::AnalyticCostModel analytic;
  eqsat::OptimizeOptions settings;
  settings.extractor = "greedy-dag";
  settings.iteration_limit = 5;
  eqsat::OptimizeResult result = eqsat::optimize(model.graph, library_rules(), analytic, settings);
  const ir::Graph& optimized = result.graph;
  std::vector<ir::NodeId> opaque = optimized.nodes_of(ir::OpKind::Opaque);
  ASSERT_EQ(opaque.size(), 1u);
  EXPECT_EQ(optimized.node(opaque[0]).outputs.size(), 2u);
  EXPECT_EQ(optimized.outputs().size(), 2u);
  EXPECT_EQ(optimized.op_histogram().at("tanh"), 1);

  ::onnx::ModelProto exported;
  ASSERT_TRUE(exported.ParseFromString(export_onnx(optimized, model)));
  int twins = 0;
  for (const auto& node : exported.graph().node()) {
    if (node.op_type() != "Twin") continue;
    ++twins;
    EXPECT_EQ(node.domain(), "com.example");
    ASSERT_EQ(node.attribute_size(), 1);
    EXPECT_EQ(node.attribute(0).name(), "k");
    EXPECT_EQ(node.attribute(0).i(), 3);
    EXPECT_EQ(node.output_size(), 2);
  }
  EXPECT_EQ(twins, 1);
  bool custom_opset = false;
  for (const auto& opset : exported.opset_import()) {
    custom_opset = custom_opset || (opset.domain() == "com.example" && opset.version() == 1);
  }
  EXPECT_TRUE(custom_opset);
  // And it imports again to the same structure.
  OnnxModel again = import_onnx_bytes(exported.SerializeAsString(), "again.onnx");
  EXPECT_EQ(again.graph.nodes_of(ir::OpKind::Opaque).size(), 1u);
}

TEST(OnnxOpaque, SubgraphOuterReferencesAreFoundRecursively) {
  // If: then-branch reads outer h; its nested Loop body reads outer k and then-branch's t.
  ::onnx::NodeProto node;
  node.set_op_type("If");
  auto* then_attr = node.add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(::onnx::AttributeProto::GRAPH);
  auto* then_graph = then_attr->mutable_g();
  auto* mul = then_graph->add_node();
  mul->set_op_type("Mul");
  mul->add_input("h");
  mul->add_input("h");
  mul->add_output("t");
  auto* loop = then_graph->add_node();
  loop->set_op_type("Loop");
  loop->add_output("l");
  auto* body_attr = loop->add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(::onnx::AttributeProto::GRAPH);
  auto* body = body_attr->mutable_g();
  body->add_input()->set_name("i");
  auto* add = body->add_node();
  add->set_op_type("Add");
  add->add_input("t");
  add->add_input("k");
  add->add_input("i");
  add->add_output("s");
  then_graph->add_output()->set_name("l");
  EXPECT_EQ(saturate::onnx::outer_references(node), (std::vector<std::string>{"h", "k"}));
  ::onnx::NodeProto plain;
  plain.set_op_type("Relu");
  plain.add_input("x");
  EXPECT_TRUE(saturate::onnx::outer_references(plain).empty());
}
