// `saturate pm`: PyPM from the command line. `compile` runs the Python front end on a pattern
// file; `apply` loads a .pmb and rewrites a graph greedily (or explains why a node does not
// match).

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "cli/graph_loader.h"
#include "cli/option_checks.h"
#include "cli/python_helpers.h"
#include "cli/text_table.h"
#include "cli/verification.h"
#include "cost/analytic_cost_model.h"
#include "cost/graph_cost.h"
#include "driver/file_checks.h"
#include "driver/json_output.h"
#include "driver/name_checks.h"
#include "driver/verification.h"
#include "ir/dot_writer.h"
#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "onnx/onnxruntime_helper.h"
#include "pm/explain.h"
#include "pm/format_reader.h"
#include "pm/rewriter.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/python_helper.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

struct CompileOptions {
  std::string source;
  std::string output;
  // A pattern file is Python: it runs with a bound on wall time and memory.
  unsigned time_limit_seconds = 120;
  unsigned memory_limit_mb = 4096;
};

struct ApplyOptions {
  std::string patterns;
  std::string graph;
  bool reduced = false;
  std::vector<std::string> input_shapes;
  std::string output_path;
  std::string dot_path;
  std::string json_path;
  std::string explain_value;
  size_t max_passes = 100;
  bool verify = false;
  bool keep_unverified = false;
};

void run_compile(const CompileOptions& options) {
  driver::check_input_file(options.source);
  driver::check_outputs({options.source}, {{"-o", options.output}});
  // The front end is Python; it writes the output atomically and reports FILE:LINE errors.
  std::vector<std::string> args = {"compile", options.source};
  if (!options.output.empty()) args.insert(args.end(), {"-o", options.output});
  const CompletedProcess done = run_python_module(
      "saturate.pypm", args,
      {"SATURATE_CHILD_WALL_SECONDS=" + std::to_string(options.time_limit_seconds),
       "SATURATE_CHILD_MEMORY_BYTES=" + std::to_string(uint64_t{options.memory_limit_mb} << 20)});
  std::fputs(done.output.c_str(), stdout);
  if (done.signal == SIGALRM) {
    throw Error("pm compile: " + options.source + " did not finish within " +
                std::to_string(options.time_limit_seconds) +
                " s (a loop in a pattern method? raise --time-limit if it is just large)");
  }
  if (done.exit_code != 0)
    throw Error("pm compile: the PyPM front end failed on " + options.source);
}

// Runs the input model and its rewrite (`rewritten`: ONNX bytes) in ONNX Runtime on the same
// random inputs, as optimize --verify does; records the verdict in `report`.
bool verify_onnx_rewrite(const std::string& input_path, const onnx::OnnxModel& input,
                         const std::string& rewritten, nlohmann::ordered_json& report) {
  std::unique_ptr<onnx::OnnxruntimeHelper> helper;
  try {
    helper = std::make_unique<onnx::OnnxruntimeHelper>(python_executable(), python_package_dir());
  } catch (const Error& error) {
    throw Error(std::string("pm apply --verify on an ONNX model needs Python with onnxruntime: ") +
                error.what());
  }
  std::fprintf(stderr, "checking in ONNX Runtime: comparing their outputs\n");
  // The input may declare dynamic dims that --input-shape pinned: both models are fed the pins.
  return driver::verify_in_onnxruntime(*helper, onnx::ModelSource::file(input_path),
                                       onnx::ModelSource::in_memory(rewritten),
                                       driver::check_input_shapes(input), report);
}

void run_apply(const ApplyOptions& options) {
  std::vector<std::string> inputs = {options.patterns};
  if (driver::names_a_file(options.graph)) inputs.push_back(options.graph);
  driver::check_input_file(options.patterns);
  driver::check_outputs(
      inputs,
      {{"-o", options.output_path}, {"--dot", options.dot_path}, {"--json", options.json_path}});
  pm::Module module = pm::load_pmb(options.patterns);
  driver::check_rule_names(module, options.patterns);
  driver::LoadedModel loaded =
      load_graph_source(options.graph, options.reduced, options.input_shapes);
  driver::check_onnx_output(options.output_path, loaded.onnx != nullptr, options.graph);
  const bool writes_onnx = ends_with(options.output_path, ".onnx");
  const ir::Graph& graph = loaded.graph;
  if (!options.explain_value.empty()) {
    std::printf("%s", pm::explain(graph, module, options.explain_value).c_str());
    return;
  }
  pm::RewriteOptions rewrite_options;
  rewrite_options.max_passes = options.max_passes;
  pm::RewriteResult result = pm::rewrite(graph, module, rewrite_options);

  cost::AnalyticCostModel model;
  const double before = cost::graph_cost(graph, model).total;
  const double after = cost::graph_cost(result.graph, model).total;
  nlohmann::ordered_json report = {{"patterns", options.patterns},
                                   {"model", graph.name()},
                                   {"operators_before", graph.num_operators()},
                                   {"operators_after", result.graph.num_operators()},
                                   {"cost_before", before},
                                   {"cost_after", after},
                                   {"passes", result.passes},
                                   {"applications", result.applications},
                                   {"hit_iteration_cap", result.hit_iteration_cap},
                                   {"seconds", result.seconds}};
  nlohmann::json rules = nlohmann::json::array();
  TextTable table({"rule", "matches", "applied"});
  for (const pm::RuleStatistics& rule : result.rules) {
    rules.push_back(
        {{"rule", rule.name}, {"matches", rule.matches}, {"applications", rule.applications}});
    table.add_row({rule.name, std::to_string(rule.matches), std::to_string(rule.applications)});
  }
  report["rules"] = rules;
  // An ONNX input's rewrite is exported as ONNX (its weights and opaque nodes from the input,
  // com.microsoft kernels with their opset; checked by the ONNX checker) to be verified in ONNX
  // Runtime, which has kernels for the opaque operators the reference interpreter lacks, and
  // to be written to a .onnx path.
  const bool exports_onnx = loaded.onnx && (writes_onnx || options.verify);
  const bool streamed = exports_onnx && onnx::writes_external_data(result.graph, *loaded.onnx,
                                                                   onnx::ExternalData::Auto);
  if (streamed && options.verify) {
    throw Error(
        "pm apply --verify: the rewritten model's weights go to external data, which "
        "pm apply does not check in ONNX Runtime; use saturate optimize --no-rules "
        "--pypm " +
        options.patterns + " --verify");
  }
  const std::string onnx_bytes =
      exports_onnx && !streamed ? onnx::export_onnx(result.graph, *loaded.onnx) : "";
  bool verified = true;
  if (options.verify && loaded.onnx) {
    verified = verify_onnx_rewrite(options.graph, *loaded.onnx, onnx_bytes, report);
  } else if (options.verify) {
    verified = driver::verify_rewrite(graph, result.graph, report);
  }
  std::printf("%s", table.render().c_str());
  std::printf("%s: %zu -> %zu operators, cost %s -> %s ms, %zu passes%s, %.3f s\n",
              graph.name().c_str(), graph.num_operators(), result.graph.num_operators(),
              format_double(before).c_str(), format_double(after).c_str(), result.passes,
              result.hit_iteration_cap ? " (iteration cap hit)" : "", result.seconds);
  if (options.verify) print_verification(report, verified);
  // A graph that failed verification is not written (unless --keep-unverified); the report is,
  // with the verdict. Everything is built before the first file is written.
  if (verified || options.keep_unverified) {
    std::string text = writes_onnx ? onnx_bytes : "";
    if (!writes_onnx && !options.output_path.empty()) text = ir::write_text(result.graph);
    const std::string dot = options.dot_path.empty() ? "" : ir::write_dot(result.graph);
    if (writes_onnx && streamed) onnx::write_onnx(result.graph, *loaded.onnx, options.output_path);
    if (!text.empty()) write_file_atomically(options.output_path, text);
    if (!options.dot_path.empty()) write_file_atomically(options.dot_path, dot);
  }
  if (!options.json_path.empty())
    write_file_atomically(options.json_path, driver::dump_json(report));
  if (!verified) {
    throw VerificationFailed(
        verification_failure("pm apply: the rewritten graph", report, options.keep_unverified));
  }
}

}  // namespace

void register_pm_command(CLI::App& app) {
  auto* pm = app.add_subcommand("pm", "PyPM patterns: compile a pattern file, apply it to a graph");
  pm->require_subcommand(1);

  auto compile_options = std::make_shared<CompileOptions>();
  auto* compile = pm->add_subcommand("compile", "Compile a PyPM pattern file (.py) to .pmb");
  compile->add_option("FILE", compile_options->source, "PyPM source file")->required();
  compile->add_option("-o,--output", compile_options->output, "Output .pmb (default FILE.pmb)");
  compile
      ->add_option("--time-limit", compile_options->time_limit_seconds,
                   "Seconds the pattern file's Python may run (default 120)")
      ->check(CLI::Range(1u, 86400u));
  compile
      ->add_option("--memory-limit", compile_options->memory_limit_mb,
                   "Megabytes of address space it may use (default 4096)")
      ->check(CLI::Range(256u, 1u << 20));
  compile->callback([compile_options] { run_compile(*compile_options); });

  auto apply_options = std::make_shared<ApplyOptions>();
  auto* apply =
      pm->add_subcommand("apply", "Rewrite a graph greedily with a .pmb until nothing matches");
  apply->add_option("PATTERNS", apply_options->patterns, "Compiled patterns (.pmb)")->required();
  apply->add_option("MODEL", apply_options->graph, "Bundled model name, .sxp graph or .onnx model")
      ->required();
  apply->add_flag("--reduced", apply_options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(apply, apply_options->input_shapes);
  apply->add_option("-o,--output", apply_options->output_path,
                    "Write the rewritten graph (.sxp, or .onnx for an ONNX input)");
  apply->add_option("--dot", apply_options->dot_path, "Write the rewritten graph as DOT");
  apply->add_option("--json", apply_options->json_path, "Write a JSON report");
  apply->add_option("--explain", apply_options->explain_value,
                    "Show, as a tree, how each pattern's alternates fare at this node; no rewrite");
  apply->add_option("--max-passes", apply_options->max_passes, "Pass cap (reported when hit)")
      ->check(kPositiveCount);
  apply->add_flag("--verify", apply_options->verify,
                  "Run both graphs on the same random inputs (in the reference interpreter in "
                  "float64; an ONNX model and its rewrite in ONNX Runtime); on a mismatch write "
                  "only the --json report and exit with status 3");
  apply->add_flag("--keep-unverified", apply_options->keep_unverified,
                  "With --verify: write the outputs even when verification fails");
  apply->callback([apply_options] { run_apply(*apply_options); });
}

}  // namespace saturate::cli
