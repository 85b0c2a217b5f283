// `saturate ops`: the operator set of the IR, for people (a table) and for tools (JSON; the
// PyPM front end's operator table is generated from it:
// python/saturate/pypm/generate_operators.py).
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "cli/text_table.h"
#include "driver/json_output.h"
#include "ir/attribute_text.h"
#include "ir/op_registry.h"

namespace saturate::cli {
namespace {

std::string arity_text(const ir::OpInfo& info) {
  if (info.max_inputs == ir::OpInfo::kVariadic) return std::to_string(info.min_inputs) + "+";
  if (info.min_inputs == info.max_inputs) return std::to_string(info.min_inputs);
  return std::to_string(info.min_inputs) + "-" + std::to_string(info.max_inputs);
}

// The one-node ONNX operator export writes ("Add", "com.microsoft.BiasGelu"); "" otherwise.
std::string onnx_text(ir::OpKind kind) {
  const ir::OnnxOperator& onnx = ir::onnx_operator(kind);
  return onnx.domain.empty() ? onnx.op_type : onnx.domain + "." + onnx.op_type;
}

}  // namespace

void register_ops_command(CLI::App& app) {
  auto* command = app.add_subcommand("ops", "List the IR's operators, their inputs and attributes");
  auto json_output = std::make_shared<bool>(false);
  command->add_flag("--json", *json_output, "Print a JSON array instead of a table");
  command->callback([json_output] {
    nlohmann::json list = nlohmann::json::array();
    TextTable table({"operator", "inputs", "attributes", "onnx", "description"});
    for (const ir::OpInfo& info : ir::all_ops()) {
      nlohmann::json attributes = nlohmann::json::array();
      std::string attribute_text;
      for (const ir::AttrSpec& spec : info.attributes) {
        nlohmann::json entry = {{"name", spec.name}, {"kind", ir::to_string(spec.kind)}};
        std::string shown = spec.name;
        if (spec.default_value) {
          std::string value = ir::write_attribute(*spec.default_value, spec.kind);
          entry["default"] = value;
          shown += "=" + value;
        }
        attributes.push_back(entry);
        attribute_text += (attribute_text.empty() ? "" : " ") + shown;
      }
      list.push_back({{"name", info.name},
                      {"camel_name", info.camel_name},
                      {"onnx", onnx_text(info.kind)},
                      {"min_inputs", info.min_inputs},
                      {"max_inputs", info.max_inputs},
                      {"input_names", info.input_names},
                      {"outputs", info.num_outputs},
                      {"attributes", attributes},
                      {"leaf", info.is_leaf()},
                      {"description", info.description}});
      table.add_row(
          {info.name, arity_text(info), attribute_text, onnx_text(info.kind), info.description});
    }
    if (*json_output) {
      std::printf("%s", driver::dump_json(list).c_str());
    } else {
      std::printf("%s", table.render().c_str());
    }
  });
}

}  // namespace saturate::cli
