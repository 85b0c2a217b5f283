// Shape profiles: parsing `--profile` text, completing profiles with defaults for a graph's
// symbols, adversarial bindings, binding a graph to a profile, pricing at profiles, and the
// runtime's clear refusal of a graph whose symbols are unbound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "driver/shape_profiles.h"
#include "ir/symbolic_dim.h"
#include "runtime/interpreter.h"
#include "runtime/onednn_executor.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::driver;

namespace {

int64_t symbol(const char* name, int64_t lower_bound = 1) {
  return ir::symbol_dim(ir::symbol_named(name, lower_bound));
}

// x [batch sequence 64] and a cache [batch past_sequence_length 64] (which may be empty),
// concatenated along the sequence, projected by a [64 32] weight and flattened to
// [batch*(past_sequence_length+sequence) 32].
ir::Graph decoder_step() {
  const int64_t batch = symbol("batch");
  const int64_t sequence = symbol("sequence");
  const int64_t past = symbol("past_sequence_length", 0);
  ir::Graph graph("step");
  ir::ValueRef x = graph.add_input("x", {batch, sequence, 64});
  ir::ValueRef cache = graph.add_input("cache", {batch, past, 64});
  ir::ValueRef w = graph.add_weight("w", {64, 32});
  ir::NodeId joined =
      graph.add_node(ir::OpKind::Concat, {cache, x}, {{"axis", int64_t{1}}}, {"joined"});
  ir::NodeId projected = graph.add_node(ir::OpKind::MatMul, {{joined, 0}, w}, {}, {"projected"});
  const int64_t rows = ir::dim_product(batch, ir::dim_sum(past, sequence));
  ir::NodeId flat = graph.add_node(ir::OpKind::Reshape, {{projected, 0}},
                                   {{"shape", ir::Dims{rows, 32}}}, {"flat"});
  ir::NodeId out = graph.add_node(ir::OpKind::Relu, {{flat, 0}}, {}, {"out"});
  graph.add_output("y", {out, 0});
  return graph;
}

ir::Graph static_graph() {
  ir::Graph graph("static");
  ir::ValueRef x = graph.add_input("x", {2, 8});
  ir::NodeId relu = graph.add_node(ir::OpKind::Relu, {x}, {}, {"r"});
  graph.add_output("y", {relu, 0});
  return graph;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(ShapeProfiles, ParsesSizesAndWeight) {
  ShapeProfile profile = parse_shape_profile("batch=1,sequence=128");
  EXPECT_EQ(profile.name, "batch=1,sequence=128");
  EXPECT_EQ(profile.sizes, (ir::SymbolBinding{{"batch", 1}, {"sequence", 128}}));
  EXPECT_EQ(profile.weight, 1);

  profile = parse_shape_profile(" batch = 8, sequence=512 @ 0.5");
  EXPECT_EQ(profile.name, "batch = 8, sequence=512");
  EXPECT_EQ(profile.sizes, (ir::SymbolBinding{{"batch", 8}, {"sequence", 512}}));
  EXPECT_EQ(profile.weight, 0.5);
  EXPECT_EQ(to_string(profile), "batch=8,sequence=512@0.5");
  EXPECT_EQ(parse_shape_profile("past_sequence_length=0").sizes.at("past_sequence_length"), 0);
}

TEST(ShapeProfiles, RefusesBadText) {
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile(""); }), "no sizes given"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch"); }), "is not NAME=SIZE"));
  EXPECT_TRUE(
      contains(error_of([] { parse_shape_profile("batch=1,,sequence=2"); }), "is not NAME=SIZE"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("=3"); }), "without a name"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch=x"); }), "is not an integer"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch=-1"); }), "cannot be negative"));
  EXPECT_TRUE(
      contains(error_of([] { parse_shape_profile("batch=1,batch=2"); }), "batch is given twice"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch=1@0"); }), "positive number"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch=1@x"); }), "positive number"));
  EXPECT_TRUE(contains(error_of([] { parse_shape_profile("batch=1@"); }), "positive number"));
  // Every message quotes the text and shows the syntax.
  const std::string message = error_of([] { parse_shape_profile("batch=x"); });
  EXPECT_TRUE(contains(message, "profile 'batch=x'")) << message;
  EXPECT_TRUE(contains(message, "NAME=SIZE")) << message;
}

TEST(ShapeProfiles, DefaultsAreBatchOneAndLengths128) {
  const ir::Graph graph = decoder_step();
  EXPECT_EQ(graph_symbols(graph),
            (std::vector<std::string>{"batch", "past_sequence_length", "sequence"}));
  EXPECT_EQ(default_symbol_size("batch"), 1);
  EXPECT_EQ(default_symbol_size("Batch_Size"), 1);
  EXPECT_EQ(default_symbol_size("sequence"), 128);
  EXPECT_EQ(default_symbol_size("past_sequence_length"), 128);

  const std::vector<ShapeProfile> profiles = complete_profiles(graph);
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].name, "default");
  EXPECT_EQ(profiles[0].weight, 1);
  EXPECT_EQ(profiles[0].sizes,
            (ir::SymbolBinding{{"batch", 1}, {"past_sequence_length", 128}, {"sequence", 128}}));

  // A static graph gets one empty default profile.
  const std::vector<ShapeProfile> none = complete_profiles(static_graph());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].sizes.empty());
}

TEST(ShapeProfiles, CompletesGivenProfiles) {
  const ir::Graph graph = decoder_step();
  const std::vector<ShapeProfile> profiles =
      parse_shape_profiles(graph, {"batch=8@0.25", "sequence=1,past_sequence_length=0"});
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].sizes,
            (ir::SymbolBinding{{"batch", 8}, {"past_sequence_length", 128}, {"sequence", 128}}));
  EXPECT_EQ(profiles[0].weight, 0.25);
  EXPECT_EQ(profiles[1].sizes,
            (ir::SymbolBinding{{"batch", 1}, {"past_sequence_length", 0}, {"sequence", 1}}));

  std::string message = error_of([&] { parse_shape_profiles(graph, {"heads=12"}); });
  EXPECT_TRUE(contains(message, "heads is not a symbolic dimension of the model")) << message;
  EXPECT_TRUE(contains(message, "its symbols: batch, past_sequence_length, sequence")) << message;
  message = error_of([&] { parse_shape_profiles(graph, {"batch=0"}); });
  EXPECT_TRUE(contains(message, "below the least size batch may take, 1")) << message;
  message = error_of([&] { parse_shape_profiles(graph, {"batch=2", "batch=2@3"}); });
  EXPECT_TRUE(contains(message, "given twice")) << message;
  message = error_of([&] { parse_shape_profiles(static_graph(), {"batch=2"}); });
  EXPECT_TRUE(contains(message, "the model has no symbolic dimensions")) << message;
}

TEST(ShapeProfiles, RefusesAProfileAValueCannotTake) {
  // [sequence/2] is a size only at even sequences.
  ir::Graph graph("halves");
  const int64_t sequence = symbol("sequence");
  ir::ValueRef x = graph.add_input("x", {sequence, 4});
  const int64_t half =
      ir::to_dim(ir::to_expr(sequence).divided_by(ir::DimExpr::constant(2)).value());
  ir::NodeId reshaped =
      graph.add_node(ir::OpKind::Reshape, {x}, {{"shape", ir::Dims{half, 8}}}, {"folded"});
  graph.add_output("y", {reshaped, 0});
  const std::string message = error_of([&] { parse_shape_profiles(graph, {"sequence=7"}); });
  EXPECT_TRUE(contains(message, "profile 'sequence=7'")) << message;
  EXPECT_TRUE(contains(message, "value 'folded'")) << message;
  // Adversarial odd sizes the model cannot take are left out.
  for (const ShapeProfile& profile : adversarial_bindings(graph, complete_profiles(graph))) {
    EXPECT_EQ(profile.sizes.at("sequence") % 2, 0) << profile.name;
  }
}

TEST(ShapeProfiles, AdversarialBindings) {
  const ir::Graph graph = decoder_step();
  const std::vector<ShapeProfile> extra = adversarial_bindings(graph, complete_profiles(graph));
  ASSERT_EQ(extra.size(), 3u);
  EXPECT_EQ(extra[0].name, "ones");
  EXPECT_EQ(extra[0].sizes,
            (ir::SymbolBinding{{"batch", 1}, {"past_sequence_length", 0}, {"sequence", 1}}));
  EXPECT_EQ(extra[1].name, "odd-7");
  EXPECT_EQ(extra[1].sizes,
            (ir::SymbolBinding{{"batch", 7}, {"past_sequence_length", 7}, {"sequence", 7}}));
  EXPECT_EQ(extra[2].name, "odd-37");
  EXPECT_EQ(extra[2].sizes,
            (ir::SymbolBinding{{"batch", 3}, {"past_sequence_length", 37}, {"sequence", 37}}));

  // A binding a profile already covers is not repeated.
  const std::vector<ShapeProfile> given =
      parse_shape_profiles(graph, {"batch=7,sequence=7,past_sequence_length=7"});
  const std::vector<ShapeProfile> rest = adversarial_bindings(graph, given);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].name, "ones");
  EXPECT_EQ(rest[1].name, "odd-37");
  // Nothing to vary in a static graph.
  EXPECT_TRUE(adversarial_bindings(static_graph(), complete_profiles(static_graph())).empty());
}

// A mask of `mask_total` columns read at arange(mask_past + mask_new): the model accepts
// mask_past + mask_new <= mask_total only. Symbols of their own, so that the process-wide
// assumption touches no other test's graph.
TEST(ShapeProfiles, AnAssumptionBoundedByASymbolShrinksOnlyItsLeftSide) {
  const int64_t batch = symbol("mask_batch");
  const int64_t past = symbol("mask_past", 0);
  const int64_t fresh = symbol("mask_new");
  const int64_t total = symbol("mask_total");
  ir::Graph graph("mask");
  ir::ValueRef mask = graph.add_input("mask", {batch, total});
  ir::ValueRef cache = graph.add_input("cache", {batch, past});
  ir::ValueRef x = graph.add_input("x", {batch, fresh});
  ir::NodeId joined =
      graph.add_node(ir::OpKind::Concat, {cache, x}, {{"axis", int64_t{1}}}, {"joined"});
  graph.add_output("joined", {joined, 0});
  graph.add_output("mask_out", mask);
  ir::assume_at_most(ir::dim_sum(past, fresh), total, "the mask's columns");

  auto holds = [](const ir::SymbolBinding& sizes) {
    return sizes.at("mask_past") + sizes.at("mask_new") <= sizes.at("mask_total");
  };
  const std::vector<ShapeProfile> profiles = complete_profiles(graph);
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].sizes.at("mask_total"), 128);
  EXPECT_TRUE(holds(profiles[0].sizes)) << profiles[0].name;
  EXPECT_GT(profiles[0].sizes.at("mask_past"), 0);
  for (const ShapeProfile& profile : adversarial_bindings(graph, profiles)) {
    EXPECT_TRUE(holds(profile.sizes)) << profile.name;
    if (profile.name.starts_with("odd")) {  // shrunk, the lengths stay odd
      EXPECT_EQ(profile.sizes.at("mask_past") % 2, 1) << profile.name;
      EXPECT_EQ(profile.sizes.at("mask_new") % 2, 1) << profile.name;
    }
  }
  EXPECT_TRUE(ir::assumptions_hold({{"mask_past", 3}, {"mask_new", 4}, {"mask_total", 7}}));
  EXPECT_FALSE(ir::assumptions_hold({{"mask_past", 3}, {"mask_new", 5}, {"mask_total", 7}}));

  const std::string message =
      error_of([&] { parse_shape_profiles(graph, {"mask_past=16,mask_new=8,mask_total=8"}); });
  EXPECT_TRUE(contains(message, "mask_new + mask_past <= mask_total only (the mask's columns)") ||
              contains(message, "mask_past + mask_new <= mask_total only (the mask's columns)"))
      << message;
  EXPECT_TRUE(contains(message, "24 > mask_total = 8")) << message;
  // A dim at most itself is no assumption.
  const size_t known = ir::assumptions().size();
  ir::assume_at_most(total, total, "trivial");
  EXPECT_EQ(ir::assumptions().size(), known);
}

TEST(ShapeProfiles, ConcreteDimsAndGraph) {
  const ir::Graph graph = decoder_step();
  const ShapeProfile profile =
      parse_shape_profiles(graph, {"batch=2,sequence=3,past_sequence_length=4"})[0];
  const int64_t rows = ir::dim_product(
      symbol("batch"), ir::dim_sum(symbol("past_sequence_length", 0), symbol("sequence")));
  EXPECT_EQ(concrete_dims({rows, 32}, profile), (ir::Dims{14, 32}));
  EXPECT_TRUE(contains(error_of([&] {
                         concrete_dims({symbol("sequence")}, ShapeProfile{"p", {}, 1});
                       }),
                       "sequence"));

  const ir::Graph bound = concrete_graph(graph, profile);
  ASSERT_EQ(bound.num_nodes(), graph.num_nodes());
  EXPECT_EQ(bound.type(*bound.find_value("x")).dims, (ir::Dims{2, 3, 64}));
  EXPECT_EQ(bound.type(*bound.find_value("joined")).dims, (ir::Dims{2, 7, 64}));
  EXPECT_EQ(bound.type(*bound.find_value("flat")).dims, (ir::Dims{14, 32}));
  EXPECT_EQ(bound.outputs().front().name, "y");
  EXPECT_TRUE(graph_symbols(bound).empty());

  // The bound graph runs; the symbolic one is refused, naming a value and what to do.
  const runtime::TensorMap feeds = runtime::random_feeds(bound, 1);
  const runtime::TensorMap results = runtime::Interpreter().run(bound, feeds);
  EXPECT_EQ(results.at("y").dims, (ir::Dims{14, 32}));

  // An empty cache is a size 0, which a concrete IR shape cannot have: a clear error.
  const std::string message = error_of([&] {
    concrete_graph(graph, adversarial_bindings(graph, complete_profiles(graph)).front());
  });
  EXPECT_TRUE(contains(message, "profile 'ones'")) << message;
  EXPECT_TRUE(contains(message, "cache")) << message;
}

TEST(ShapeProfiles, RuntimeRefusesUnboundSymbols) {
  const ir::Graph graph = decoder_step();
  const ShapeProfile profile = complete_profiles(graph)[0];
  const runtime::TensorMap feeds = runtime::random_feeds(concrete_graph(graph, profile), 1);

  std::string message = error_of([&] { runtime::Interpreter().run(graph, feeds); });
  EXPECT_TRUE(contains(message, "the reference interpreter cannot run graph 'step'")) << message;
  EXPECT_TRUE(contains(message, "value 'x'")) << message;
  EXPECT_TRUE(contains(message, "symbolic shape f32[batch sequence 64]")) << message;
  EXPECT_TRUE(contains(message, "bind the symbols")) << message;
  message = error_of([&] { runtime::Interpreter().run_all(graph, feeds); });
  EXPECT_TRUE(contains(message, "value 'x'")) << message;
  message = error_of([&] {
    runtime::Interpreter().evaluate(graph.node(graph.find_value("projected")->node), {});
  });
  EXPECT_TRUE(contains(message, "symbolic shape")) << message;

  message = error_of([&] { runtime::random_feeds(graph, 1); });
  EXPECT_TRUE(contains(message, "input 'x'")) << message;
  EXPECT_TRUE(contains(message, "symbolic shape")) << message;

  message = error_of([&] { runtime::Tensor(graph.type(*graph.find_value("x")).dims); });
  EXPECT_TRUE(contains(message, "symbolic shape")) << message;

  message = error_of([&] { runtime::OnednnExecutor(graph, feeds); });
  EXPECT_TRUE(contains(message, "the oneDNN executor cannot run graph 'step'")) << message;
  EXPECT_FALSE(runtime::OnednnExecutor::runs_natively(ir::OpKind::Relu, {},
                                                      {graph.type(*graph.find_value("x"))},
                                                      {graph.type(*graph.find_value("x"))}));
}

TEST(ShapeProfiles, GraphCostAtProfilesIsTheWeightedMeanOfBoundGraphs) {
  const ir::Graph graph = decoder_step();
  const std::vector<ShapeProfile> profiles = parse_shape_profiles(
      graph, {"batch=1,sequence=16,past_sequence_length=0@3", "batch=4,sequence=64"});
  const cost::AnalyticCostModel analytic;
  std::unique_ptr<cost::CostModel> model =
      price_at_profiles(std::make_unique<cost::AnalyticCostModel>(), graph, profiles);
  EXPECT_EQ(model->name(), "analytic at 2 profiles");
  const double at_profiles = cost::graph_cost(graph, *model).total;
  // The first profile has an empty cache: price its bound configurations one by one.
  double first = 0;
  const cost::GraphCost second = cost::graph_cost(concrete_graph(graph, profiles[1]), analytic);
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (second.per_node[id] == 0) continue;  // leaves, folded
    const std::vector<ir::TensorType> inputs = cost::input_types(graph, id);
    first += analytic.op_cost(
        cost::bind_config({node.op, node.attrs, inputs, node.outputs}, profiles[0].sizes).view());
  }
  EXPECT_DOUBLE_EQ(at_profiles, 0.75 * first + 0.25 * second.total);

  // A static graph keeps its model (and its name in reports).
  EXPECT_EQ(price_at_profiles(std::make_unique<cost::AnalyticCostModel>(), static_graph(),
                              complete_profiles(static_graph()))
                ->name(),
            "analytic");
}

TEST(ShapeProfiles, Json) {
  const ShapeProfile profile = parse_shape_profile("batch=8,sequence=512@0.5");
  EXPECT_EQ(to_json(profile).dump(),
            R"({"name":"batch=8,sequence=512","sizes":{"batch":8,"sequence":512},"weight":0.5})");
  EXPECT_EQ(to_json(std::vector<ShapeProfile>{profile}).size(), 1u);
}
