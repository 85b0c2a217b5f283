#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/graph_loader.h"
#include "cli/option_checks.h"
#include "cli/text_table.h"
#include "driver/json_output.h"
#include "runtime/interpreter.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

struct RunOptions {
  std::string graph;
  uint64_t seed = 0;
  std::string precision = "f32";
  bool reduced = false;
  std::vector<std::string> input_shapes;
  bool json = false;
  bool progress = false;
};

// Progress on stderr, at most a few times a second, so long runs on big models show life.
class ProgressLine {
 public:
  void update(size_t done, size_t total) {
    auto now = std::chrono::steady_clock::now();
    if (done != total && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::fprintf(stderr, "\rrunning: %zu/%zu operators", done, total);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point last_{};
};

void run(const RunOptions& options) {
  ir::Graph graph = load_graph(options.graph, options.reduced, options.input_shapes);
  runtime::InterpreterOptions interpreter_options;
  interpreter_options.precision =
      options.precision == "f64" ? runtime::Precision::F64 : runtime::Precision::F32;
  ProgressLine progress;
  if (options.progress || isatty(STDERR_FILENO) != 0) {
    interpreter_options.on_progress = [&progress](size_t done, size_t total) {
      progress.update(done, total);
    };
  }
  runtime::Interpreter interpreter(interpreter_options);

  runtime::TensorMap feeds = runtime::random_feeds(graph, options.seed);
  auto start = std::chrono::steady_clock::now();
  runtime::TensorMap outputs = interpreter.run(graph, feeds);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  nlohmann::json report = {{"graph", graph.name()},
                           {"seed", options.seed},
                           {"precision", options.precision},
                           {"seconds", seconds},
                           {"outputs", nlohmann::json::array()}};
  TextTable table({"output", "shape", "checksum", "mean |x|", "min", "max"});
  bool finite = true;
  for (const auto& output : graph.outputs()) {
    const runtime::Tensor& tensor = outputs.at(output.name);
    double sum_abs = 0;
    double low = tensor.data.empty() ? 0 : tensor.data[0];
    double high = low;
    for (double v : tensor.data) {
      sum_abs += std::fabs(v);
      low = std::min(low, v);
      high = std::max(high, v);
      finite = finite && std::isfinite(v);
    }
    double mean_abs = tensor.data.empty() ? 0 : sum_abs / static_cast<double>(tensor.data.size());
    double sum = runtime::checksum(tensor);
    report["outputs"].push_back({{"name", output.name},
                                 {"shape", tensor.dims},
                                 {"checksum", sum},
                                 {"mean_abs", mean_abs},
                                 {"min", low},
                                 {"max", high}});
    table.add_row({output.name, ir::to_string(tensor.dims), format_fixed(sum, 6),
                   format_fixed(mean_abs, 6), format_fixed(low, 6), format_fixed(high, 6)});
  }
  report["finite"] = finite;
  if (options.json) {
    std::printf("%s", driver::dump_json(report).c_str());
  } else {
    std::printf("ran %s in the reference interpreter (%s, seed %llu) in %.3f s\n\n%s",
                graph.name().c_str(), options.precision.c_str(),
                static_cast<unsigned long long>(options.seed), seconds, table.render().c_str());
  }
  if (!finite) {
    std::fprintf(stderr,
                 "saturate: warning: the graph produced non-finite values (NaN or infinity) on "
                 "these random inputs\n");
  }
}

}  // namespace

void register_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* command = app.add_subcommand(
      "run", "Run a graph in the reference interpreter on random inputs; print output checksums");
  command->add_option("MODEL", options->graph, "Bundled model name or .sxp graph file")->required();
  command->add_option("--seed", options->seed, "Seed for the random inputs and weights")
      ->check(kCount)
      ->capture_default_str();
  command->add_option("--precision", options->precision, "Arithmetic precision")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  command->add_flag("--reduced", options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, options->input_shapes);
  command->add_flag("--json", options->json, "Print a JSON report instead of a table");
  command->add_flag("--progress", options->progress,
                    "Report progress on stderr (the default when stderr is a terminal)");
  command->callback([options] { run(*options); });
}

}  // namespace saturate::cli
