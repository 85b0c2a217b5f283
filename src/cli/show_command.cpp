#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/graph_loader.h"
#include "cli/text_table.h"
#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "driver/file_checks.h"
#include "driver/json_output.h"
#include "driver/shape_profiles.h"
#include "ir/dot_writer.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "ir/text_format.h"
#include "support/atomic_file.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

struct ShowOptions {
  std::string graph;
  bool reduced = false;
  std::vector<std::string> input_shapes;
  std::vector<std::string> profiles;
  bool json = false;
  std::string dot_path;
  std::string text_path;
};

void show(const ShowOptions& options) {
  driver::check_outputs(driver::names_a_file(options.graph)
                            ? std::vector<std::string>{options.graph}
                            : std::vector<std::string>{},
                        {{"--dot", options.dot_path}, {"--sxp", options.text_path}});
  driver::LoadedModel loaded =
      load_graph_source(options.graph, options.reduced, options.input_shapes);
  const ir::Graph& graph = loaded.graph;
  // ONNX operators carried opaque, by type: what the optimizer works around.
  std::map<std::string, int> opaque_types;
  for (ir::NodeId id : graph.nodes_of(ir::OpKind::Opaque)) {
    ++opaque_types[graph.node(id).attrs.get_string("op_type")];
  }
  int folded_nodes = loaded.onnx ? loaded.onnx->folded_nodes : 0;
  // A graph with symbolic dimensions is priced at its profiles, as optimize prices it.
  const std::vector<driver::ShapeProfile> profiles =
      driver::graph_symbols(graph).empty() && options.profiles.empty()
          ? std::vector<driver::ShapeProfile>{}
          : driver::parse_shape_profiles(graph, options.profiles);
  std::unique_ptr<cost::CostModel> model =
      driver::price_at_profiles(std::make_unique<cost::AnalyticCostModel>(), graph, profiles);
  cost::GraphCost cost = cost::graph_cost(graph, *model);

  int64_t parameters = 0;
  for (ir::NodeId id : graph.weights()) parameters += graph.node(id).outputs[0].num_elements();

  // Outputs first, so that a failure to write leaves nothing half-done on screen.
  if (!options.dot_path.empty()) write_file_atomically(options.dot_path, ir::write_dot(graph));
  if (!options.text_path.empty()) write_file_atomically(options.text_path, ir::write_text(graph));

  // A symbolic dimension as its expression ("batch", "past + sequence"), a fixed one as a number.
  auto shape_json = [](const ir::Dims& dims) {
    nlohmann::json shape = nlohmann::json::array();
    for (int64_t dim : dims) {
      if (ir::is_symbolic(dim)) {
        shape.push_back(ir::dim_to_string(dim));
      } else {
        shape.push_back(dim);
      }
    }
    return shape;
  };
  auto values = [&graph, &shape_json](const std::vector<ir::NodeId>& ids) {
    nlohmann::json list = nlohmann::json::array();
    for (ir::NodeId id : ids) {
      list.push_back({{"name", graph.node(id).name()},
                      {"shape", shape_json(graph.node(id).outputs[0].dims)},
                      {"dtype", ir::to_string(graph.node(id).outputs[0].dtype)}});
    }
    return list;
  };
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& output : graph.outputs()) {
    outputs.push_back(
        {{"name", output.name}, {"shape", shape_json(graph.type(output.value).dims)}});
  }

  if (options.json) {
    nlohmann::json report = {{"name", graph.name()},
                             {"nodes", graph.num_nodes()},
                             {"ops", graph.num_operators()},
                             {"op_histogram", graph.op_histogram()},
                             {"inputs", values(graph.inputs())},
                             {"outputs", outputs},
                             {"weights", graph.weights().size()},
                             {"parameters", parameters},
                             {"cost_model", model->name()},
                             {"cost_ms", cost.total},
                             {"folded_operators", cost.folded_operators},
                             {"opaque_op_types", opaque_types}};
    if (!profiles.empty()) report["profiles"] = driver::to_json(profiles);
    if (loaded.onnx) {
      report["folded_nodes"] = folded_nodes;
      report["folded_by_op"] = loaded.onnx->folded_by_op;
    }
    std::printf("%s", driver::dump_json(report).c_str());
    return;
  }

  std::printf("graph %s: %zu operators, %zu nodes, %zu weights (%lld parameters)\n",
              graph.name().c_str(), graph.num_operators(), graph.num_nodes(),
              graph.weights().size(), static_cast<long long>(parameters));
  for (ir::NodeId id : graph.inputs()) {
    std::printf("  input  %s %s\n", graph.node(id).name().c_str(),
                ir::to_string(graph.node(id).outputs[0]).c_str());
  }
  for (const auto& output : graph.outputs()) {
    std::printf("  output %s %s\n", output.name.c_str(),
                ir::to_string(graph.type(output.value)).c_str());
  }
  // Cost per operator type, so the table says where the time goes.
  std::map<std::string, double> cost_by_op;
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    cost_by_op[std::string(ir::to_string(graph.node(id).op))] += cost.per_node[id];
  }
  TextTable table({"operator", "count", "cost ms", "share %"});
  for (const auto& [op, count] : graph.op_histogram()) {
    double share = cost.total > 0 ? 100.0 * cost_by_op[op] / cost.total : 0.0;
    table.add_row(
        {op, std::to_string(count), format_fixed(cost_by_op[op], 4), format_fixed(share, 1)});
  }
  std::printf("\n%s", table.render().c_str());
  std::printf("\ncost (%s model): %.4f ms; %d operators folded at compile time\n",
              model->name().c_str(), cost.total, cost.folded_operators);
  for (const driver::ShapeProfile& profile : profiles) {
    std::printf("priced at profile %s\n", driver::to_string(profile).c_str());
  }
  if (loaded.onnx) {
    std::printf("import: %d ONNX nodes folded into constants (shape arithmetic, masks)\n",
                folded_nodes);
  }
  if (!opaque_types.empty()) {
    std::string list;
    for (const auto& [type, count] : opaque_types) {
      list += (list.empty() ? "" : ", ") + type + " " + std::to_string(count);
    }
    std::printf("carried as opaque ONNX operators: %s\n", list.c_str());
  }
  if (!options.dot_path.empty()) std::printf("wrote %s\n", options.dot_path.c_str());
  if (!options.text_path.empty()) std::printf("wrote %s\n", options.text_path.c_str());
}

}  // namespace

void register_show_command(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  auto* command =
      app.add_subcommand("show", "Summarize a graph: operators by type, cost, inputs and outputs");
  command->add_option("MODEL", options->graph, "Bundled model name, .sxp graph or .onnx model")
      ->required();
  command->add_flag("--reduced", options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, options->input_shapes);
  command->add_option("--profile", options->profiles,
                      "Sizes of the model's symbolic dimensions at which the cost is estimated, "
                      "NAME=SIZE,...[@WEIGHT] (repeatable); symbols left out take batch 1, "
                      "other lengths 128");
  command->add_flag("--json", options->json, "Print a JSON summary instead of tables");
  command->add_option("--dot", options->dot_path, "Also write the graph as Graphviz DOT to OUT");
  command->add_option("--sxp", options->text_path, "Also write the graph in text form to OUT");
  command->callback([options] { show(*options); });
}

}  // namespace saturate::cli
