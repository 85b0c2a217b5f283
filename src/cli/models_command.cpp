#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/text_table.h"
#include "driver/json_output.h"
#include "models/model_registry.h"

namespace saturate::cli {

void register_models_command(CLI::App& app) {
  auto* command = app.add_subcommand("models", "List the bundled benchmark models with op counts");
  auto json_output = std::make_shared<bool>(false);
  command->add_flag("--json", *json_output, "Print a JSON array instead of a table");
  command->callback([json_output] {
    nlohmann::json list = nlohmann::json::array();
    TextTable table({"model", "ops", "reference ops", "inputs", "description"});
    for (const models::ModelInfo& model : models::all_models()) {
      ir::Graph graph = model.build(models::ModelOptions{});
      std::string inputs;
      nlohmann::json input_list = nlohmann::json::array();
      for (ir::NodeId id : graph.inputs()) {
        const ir::Node& node = graph.node(id);
        inputs += (inputs.empty() ? "" : " ") + node.name() + ir::to_string(node.outputs[0].dims);
        input_list.push_back({{"name", node.name()}, {"shape", node.outputs[0].dims}});
      }
      list.push_back({{"name", model.name},
                      {"ops", graph.num_operators()},
                      {"reference_ops", model.reference_ops},
                      {"nodes", graph.num_nodes()},
                      {"inputs", input_list},
                      {"op_histogram", graph.op_histogram()},
                      {"description", model.description}});
      table.add_row({model.name, std::to_string(graph.num_operators()),
                     model.reference_ops > 0 ? std::to_string(model.reference_ops) : "-", inputs,
                     model.description});
    }
    if (*json_output) {
      std::printf("%s", driver::dump_json(list).c_str());
    } else {
      std::printf("%s", table.render().c_str());
    }
  });
}

}  // namespace saturate::cli
