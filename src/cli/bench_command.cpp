// `saturate bench`: whole-graph latency on the oneDNN executor, of the original graph and, with
// --optimize, of the graph `saturate optimize` extracts, side by side with the cost model's
// prediction.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/cost_model_options.h"
#include "cli/graph_loader.h"
#include "cli/option_checks.h"
#include "cli/text_table.h"
#include "cost/graph_cost.h"
#include "driver/file_checks.h"
#include "driver/json_output.h"
#include "driver/rules_loader.h"
#include "eqsat/optimizer.h"
#include "runtime/interpreter.h"
#include "runtime/onednn_executor.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cli {
namespace {

struct BenchOptions {
  std::string graph;
  bool reduced = false;
  std::vector<std::string> input_shapes;
  int runs = 20;
  int warmup = 3;
  int threads = 0;
  uint64_t seed = 0;
  bool optimize = false;
  std::string json_path;
  // The optimize options bench passes on (a subset of `saturate optimize`'s).
  std::vector<std::string> rule_files;
  std::vector<std::string> tensat_multi_files;
  size_t node_limit = 50'000;
  size_t iteration_limit = 15;
  size_t k_multi = 1;
  double time_limit = 3600;
  std::string extractor = "ilp";
  double ilp_time_limit = 600;
  driver::CostModelOptions cost;
};

// Latency samples of one graph and what they summarize to.
struct Latency {
  std::vector<double> samples_ms;
  double median = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double p10 = 0;
  double p90 = 0;
};

// Linear interpolation between the closest ranks of sorted samples.
double percentile(const std::vector<double>& sorted, double fraction) {
  if (sorted.empty()) return 0;
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

Latency summarize(std::vector<double> samples) {
  Latency latency;
  latency.samples_ms = samples;
  std::sort(samples.begin(), samples.end());
  latency.median = percentile(samples, 0.5);
  latency.p10 = percentile(samples, 0.1);
  latency.p90 = percentile(samples, 0.9);
  latency.min = samples.empty() ? 0 : samples.front();
  latency.max = samples.empty() ? 0 : samples.back();
  double sum = 0;
  for (double s : samples) sum += s;
  latency.mean = samples.empty() ? 0 : sum / static_cast<double>(samples.size());
  return latency;
}

struct GraphBench {
  std::string label;
  size_t operators = 0;
  double predicted_ms = 0;
  double compile_seconds = 0;
  runtime::OnednnPlanStats plan;
  Latency latency;
  runtime::TensorMap outputs;
  std::unique_ptr<runtime::OnednnExecutor> executor;
};

GraphBench compile_bench(const std::string& label, const ir::Graph& graph, double predicted_ms,
                         const BenchOptions& options) {
  GraphBench bench;
  bench.label = label;
  bench.operators = graph.num_operators();
  bench.predicted_ms = predicted_ms;
  const runtime::TensorMap feeds = runtime::random_feeds(graph, options.seed);
  auto start = std::chrono::steady_clock::now();
  bench.executor = std::make_unique<runtime::OnednnExecutor>(
      graph, feeds, runtime::OnednnOptions{.threads = options.threads});
  bench.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bench.plan = bench.executor->stats();
  bench.executor->set_inputs(feeds);
  return bench;
}

// Times the graphs side by side: their runs alternate, in ABBA order (A B, then B A, ...), so
// that warm-up, frequency and cache drift fall on every graph alike. Timing one graph's runs
// and then the other's made two copies of the same graph differ by 10 % on this machine.
void time_interleaved(const std::vector<GraphBench*>& benches, const BenchOptions& options) {
  auto last = std::chrono::steady_clock::now();
  const int total = options.warmup + options.runs;
  for (int i = 0; i < total; ++i) {
    for (size_t k = 0; k < benches.size(); ++k) {
      GraphBench& bench = *benches[i % 2 == 0 ? k : benches.size() - 1 - k];
      const std::vector<double> one = bench.executor->time_runs(0, 1);
      if (i >= options.warmup) bench.latency.samples_ms.push_back(one.front());
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last > std::chrono::milliseconds(500) || i + 1 == total) {
      last = now;
      std::fprintf(stderr, "\rbenchmarking %zu graph(s): %d/%d runs each (%d warm-up)",
                   benches.size(), i + 1, total, options.warmup);
      std::fflush(stderr);
    }
  }
  std::fprintf(stderr, "\n");
  for (GraphBench* bench : benches) {
    bench->latency = summarize(std::move(bench->latency.samples_ms));
    bench->outputs = bench->executor->outputs();
  }
}

nlohmann::ordered_json to_json(const GraphBench& bench) {
  const Latency& l = bench.latency;
  return {{"operators", bench.operators},
          {"median_ms", l.median},
          {"mean_ms", l.mean},
          {"min_ms", l.min},
          {"max_ms", l.max},
          {"p10_ms", l.p10},
          {"p90_ms", l.p90},
          {"predicted_ms", bench.predicted_ms},
          {"compile_seconds", bench.compile_seconds},
          {"primitives", bench.plan.primitives},
          {"reorders", bench.plan.reorders},
          {"fallbacks", bench.plan.fallbacks},
          {"folded", bench.plan.folded},
          {"samples_ms", l.samples_ms}};
}

void run_bench(const BenchOptions& options) {
  if (options.runs < 1) throw Error("--runs must be at least 1");
  driver::check_outputs(driver::names_a_file(options.graph)
                            ? std::vector<std::string>{options.graph}
                            : std::vector<std::string>{},
                        {{"--json", options.json_path}});
  ir::Graph graph = load_graph(options.graph, options.reduced, options.input_shapes);
  driver::CostModelOptions cost_options = options.cost;
  cost_options.threads = options.threads;
  std::unique_ptr<cost::CostModel> model = driver::make_cost_model(cost_options);

  std::optional<ir::Graph> optimized;
  double original_predicted = 0;
  double optimized_predicted = 0;
  if (options.optimize) {
    eqsat::RuleSet rules = driver::load_rule_sets(options.rule_files, options.tensat_multi_files);
    eqsat::OptimizeOptions settings;
    settings.node_limit = options.node_limit;
    settings.iteration_limit = options.iteration_limit;
    settings.multi_pattern_iterations = options.k_multi;
    settings.time_limit_seconds = options.time_limit;
    settings.extractor = options.extractor == "greedy" ? "greedy-dag" : options.extractor;
    settings.ilp_time_limit_seconds = options.ilp_time_limit;
    std::fprintf(stderr, "optimizing %s: %zu operators, %zu rules, cost model %s\n",
                 graph.name().c_str(), graph.num_operators(), rules.size(), model->name().c_str());
    eqsat::OptimizeResult result = eqsat::optimize(graph, rules, *model, settings);
    original_predicted = result.original_cost;
    optimized_predicted = result.optimized_cost;
    optimized = std::move(result.graph);
  } else {
    original_predicted = cost::graph_cost(graph, *model).total;
  }

  GraphBench original = compile_bench("original", graph, original_predicted, options);
  std::optional<GraphBench> rewritten;
  if (optimized) rewritten = compile_bench("optimized", *optimized, optimized_predicted, options);
  std::vector<GraphBench*> benches = {&original};
  if (rewritten) benches.push_back(&*rewritten);
  time_interleaved(benches, options);

  nlohmann::ordered_json report = {{"model", graph.name()},
                                   {"executor", "onednn"},
                                   {"onednn_version", runtime::onednn_version()},
                                   {"threads", runtime::onednn_thread_count(options.threads)},
                                   {"runs", options.runs},
                                   {"warmup", options.warmup},
                                   {"original", to_json(original)},
                                   {"optimized", nullptr},
                                   {"measured_speedup", nullptr},
                                   {"predicted_speedup", nullptr},
                                   {"max_relative_difference", nullptr}};
  driver::add_cost_model_report(*model, report);

  TextTable table(rewritten ? std::vector<std::string>{"", "original", "optimized"}
                            : std::vector<std::string>{"", "original"});
  auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> cells{name, value(original)};
    if (rewritten) cells.push_back(value(*rewritten));
    table.add_row(std::move(cells));
  };
  row("operators", [](const GraphBench& b) { return std::to_string(b.operators); });
  row("median (ms)", [](const GraphBench& b) { return format_fixed(b.latency.median, 4); });
  row("min (ms)", [](const GraphBench& b) { return format_fixed(b.latency.min, 4); });
  row("p10 (ms)", [](const GraphBench& b) { return format_fixed(b.latency.p10, 4); });
  row("p90 (ms)", [](const GraphBench& b) { return format_fixed(b.latency.p90, 4); });
  row("predicted (ms, " + model->name() + ")",
      [](const GraphBench& b) { return format_fixed(b.predicted_ms, 4); });
  row("oneDNN primitives", [](const GraphBench& b) { return std::to_string(b.plan.primitives); });
  row("reference fallbacks", [](const GraphBench& b) { return std::to_string(b.plan.fallbacks); });
  std::printf("%s: oneDNN %s, %d threads, median of %d runs after %d warm-up\n",
              graph.name().c_str(), runtime::onednn_version().c_str(),
              runtime::onednn_thread_count(options.threads), options.runs, options.warmup);
  std::printf("%s\n", table.render().c_str());

  if (rewritten) {
    const double measured =
        rewritten->latency.median > 0 ? original.latency.median / rewritten->latency.median : 0;
    const double predicted = optimized_predicted > 0 ? original_predicted / optimized_predicted : 0;
    double difference = 0;
    for (const auto& [name, value] : original.outputs) {
      difference = std::max(difference,
                            runtime::max_relative_difference(rewritten->outputs.at(name), value));
    }
    report["optimized"] = to_json(*rewritten);
    report["measured_speedup"] = measured;
    report["predicted_speedup"] = predicted;
    report["max_relative_difference"] = difference;
    std::printf(
        "measured speedup: %.3fx (median original / median optimized); predicted by %s: "
        "%.3fx\n",
        measured, model->name().c_str(), predicted);
    std::printf("outputs agree within %.2g (relative)\n", difference);
  }
  if (std::string summary = driver::cost_model_summary(*model); !summary.empty()) {
    std::printf("%s\n", summary.c_str());
  }
  if (!options.json_path.empty()) {
    write_file_atomically(options.json_path, driver::dump_json(report));
    std::printf("wrote %s\n", options.json_path.c_str());
  }
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  auto* command = app.add_subcommand(
      "bench",
      "Time whole-graph runs on the oneDNN executor; with --optimize, of the original and the "
      "optimized graph side by side with the cost model's predicted speedup");
  command->add_option("MODEL", options->graph, "Bundled model name or .sxp graph file")->required();
  command->add_flag("--reduced", options->reduced, "Use the reduced-size variant of a model");
  add_input_shape_option(command, options->input_shapes);
  command->add_option("--runs", options->runs, "Timed runs per graph")
      ->check(kPositiveCount)
      ->capture_default_str();
  command->add_option("--warmup", options->warmup, "Untimed runs before them")
      ->check(kCount)
      ->capture_default_str();
  command
      ->add_option("--threads", options->threads,
                   "oneDNN (OpenMP) threads; 0: OMP_NUM_THREADS or all cores")
      ->check(kCount)
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Seed of the random inputs and weights")
      ->check(kCount)
      ->capture_default_str();
  command->add_flag("--optimize", options->optimize,
                    "Also optimize the graph (equality saturation, as `saturate optimize`) and "
                    "time the result");
  command->add_option("--json", options->json_path, "Write a JSON report");
  command->add_option("--rules", options->rule_files,
                      "--optimize: rule file (repeatable; default: the shipped library)");
  command->add_option("--tensat-multi", options->tensat_multi_files,
                      "--optimize: TENSAT multi-pattern rule file (repeatable)");
  command->add_option("--node-limit", options->node_limit, "--optimize: e-graph node limit")
      ->check(kPositiveCount)
      ->capture_default_str();
  command->add_option("--iter-limit", options->iteration_limit, "--optimize: iteration limit")
      ->check(kCount)
      ->capture_default_str();
  command
      ->add_option("--k-multi", options->k_multi,
                   "--optimize: iterations in which multi-pattern rules run")
      ->check(kCount)
      ->capture_default_str();
  command->add_option("--time-limit", options->time_limit, "--optimize: exploration time limit (s)")
      ->check(kPositiveSeconds)
      ->capture_default_str();
  command->add_option("--extract", options->extractor, "--optimize: extraction method")
      ->check(CLI::IsMember({"ilp", "greedy", "greedy-dag", "bottom-up"}))
      ->capture_default_str();
  command->add_option("--ilp-time-limit", options->ilp_time_limit, "--optimize: ILP time limit (s)")
      ->check(kPositiveSeconds)
      ->capture_default_str();
  add_cost_model_options(command, options->cost);
  command->callback([options] { run_bench(*options); });
}

}  // namespace saturate::cli
