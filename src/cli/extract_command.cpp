#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/text_table.h"
#include "driver/file_checks.h"
#include "driver/json_output.h"
#include "extract/egraph_json.h"
#include "extract/extractor.h"
#include "extract/milp_solver.h"
#include "support/atomic_file.h"
#include "support/deadline.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

struct ExtractCommandOptions {
  std::string path;
  std::string method = "ilp";
  double time_limit = 60;
  std::string cycles = "lazy";
  std::string solver = "auto";
  std::string json_path;
};

void run_extract(const ExtractCommandOptions& options) {
  // The limit is the command's: reading a large e-graph counts against it too.
  const Deadline deadline = Deadline::after(options.time_limit);
  driver::check_input_file(options.path);
  driver::check_outputs({options.path}, {{"--json", options.json_path}});
  extract::ExtractionGraph graph = extract::read_egraph_json(options.path);
  extract::ExtractOptions settings;
  settings.time_limit_seconds = options.time_limit;
  settings.deadline = deadline;
  settings.cycles =
      extract::parse_cycle_handling(options.cycles == "int" ? "integer" : options.cycles);
  settings.solver = options.solver;
  extract::ExtractionResult result =
      extract::make_extractor(options.method)->extract(graph, settings);

  if (!result.found || !result.acyclic) {
    throw Error(options.path + ": no acyclic extraction covers the roots (" + result.method + ": " +
                result.status + ")");
  }
  nlohmann::ordered_json report = extract::result_to_json(graph, result);
  report["file"] = options.path;
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, driver::dump_json(report));

  TextTable table({"file", "method", "dag cost", "tree cost", "acyclic", "optimal", "seconds"});
  table.add_row({options.path, result.method, format_fixed(result.dag_cost, 6),
                 format_fixed(result.tree_cost, 6), result.acyclic ? "yes" : "no",
                 result.proven_optimal ? "yes" : "no", format_fixed(result.seconds, 3)});
  std::printf("%s", table.render().c_str());
  std::printf("%zu e-classes, %zu e-nodes; status: %s\n", graph.class_count(), graph.node_count(),
              result.status.c_str());
  if (!result.solver.empty()) std::printf("MILP solver: %s\n", result.solver.c_str());
  if (!options.json_path.empty()) std::printf("wrote %s\n", options.json_path.c_str());
}

}  // namespace

void register_extract_command(CLI::App& app) {
  auto options = std::make_shared<ExtractCommandOptions>();
  auto* command = app.add_subcommand(
      "extract", "Extract the cheapest term from a serialized e-graph (egraph-serialize JSON)");
  command->add_option("FILE", options->path, "egraph-serialize JSON file")->required();
  command->add_option("--method", options->method, "Extraction method")
      ->check(CLI::IsMember({"bottom-up", "greedy-dag", "ilp"}))
      ->capture_default_str();
  command
      ->add_option("--time-limit", options->time_limit,
                   "Time limit (s) for the whole command, reading the e-graph included")
      ->check(kPositiveSeconds)
      ->capture_default_str();
  command->add_option("--ilp-cycles", options->cycles, "ILP cycle handling")
      ->check(CLI::IsMember({"none", "lazy", "real", "int"}))
      ->capture_default_str();
  command
      ->add_option("--ilp-solver", options->solver,
                   "MILP solver: highs (needs Python's highspy), cbc, or auto (highs when "
                   "available)")
      ->check(CLI::IsMember(extract::milp_solver_names()))
      ->capture_default_str();
  command->add_option("--json", options->json_path, "Write a JSON report");
  command->callback([options] { run_extract(*options); });
}

}  // namespace saturate::cli
