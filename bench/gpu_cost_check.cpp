// Measures the operator configurations of benchmark models on the GPU with the cuDNN/cuBLAS
// timer and compares each original graph's cost under the measured prices with the analytic
// model. Run by bench/gpu_check.sh; writes gpu_cost_check.json and gpu_cost_check.md.
//
//   gpu_cost_check [--out DIR] [--reduced] [--dry-run] [MODEL...]  (default: the 7 paper models)
//
// --dry-run collects and classifies the configurations without a device (nothing is timed).
// Exits 2 when no CUDA device is visible (and not --dry-run), 1 on any other error.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/analytic_cost_model.h"
#include "cost/cuda/cudnn_op_support.h"
#include "cost/cuda/cudnn_op_timer.h"
#include "cost/cuda/cudnn_timer_factory.h"
#include "cost/graph_cost.h"
#include "ir/op_registry.h"
#include "ir/weight_only.h"
#include "models/model_registry.h"
#include "support/error.h"

namespace {

using namespace saturate;

const std::vector<std::string> kPaperModels = {
    "bert", "nasrnn", "nasnet_a", "resnext50", "inception_v3", "squeezenet", "vgg19"};

// Prices configurations from a table of measured times, the rest with a fallback model.
class TableCostModel : public cost::CostModel {
 public:
  TableCostModel(const std::unordered_map<std::string, double>& measured,
                 const cost::CostModel& fallback)
      : measured_(measured), fallback_(fallback) {}
  std::string name() const override { return "cudnn-table"; }
  double op_cost(const cost::OpConfig& config) const override {
    auto it = measured_.find(cost::describe(config));
    return it != measured_.end() ? it->second : fallback_.op_cost(config);
  }

 private:
  const std::unordered_map<std::string, double>& measured_;
  const cost::CostModel& fallback_;
};

struct ModelReport {
  std::string name;
  int operators = 0;         // nodes priced (not leaves, noop or folded)
  int timed_nodes = 0;       // of which priced by measurement
  int distinct_configs = 0;  // distinct configurations among the priced nodes
  int timed_configs = 0;
  double measure_seconds = 0;
  double cudnn_cost_ms = 0;     // measured where timed, analytic fallback elsewhere
  double timed_part_ms = 0;     // the measured nodes alone
  double fallback_part_ms = 0;  // the analytic fallback's share
  double analytic_cost_ms = 0;
  std::map<std::string, int> unsupported_ops;  // op -> nodes left to the fallback
  nlohmann::ordered_json configs = nlohmann::ordered_json::array();
};

// Collects the model's distinct configurations and times the supported ones (all of them at
// once); with no timer (a dry run) nothing is timed and the supported ones are priced at 0.
ModelReport measure_model(const models::ModelInfo& info, bool reduced, cost::CudnnOpTimer* timer,
                          const cost::AnalyticCostModel& analytic) {
  ModelReport report;
  report.name = info.name;
  models::ModelOptions options;
  options.reduced = reduced;
  const ir::Graph graph = info.build(options);
  const std::vector<bool> known = ir::weight_only_nodes(graph);

  std::unordered_map<std::string, size_t> index;  // describe -> position in `distinct`
  std::vector<cost::OwnedOpConfig> distinct;
  std::vector<int> uses;
  std::vector<bool> timed;
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (ir::op_info(node.op).is_leaf() || node.op == ir::OpKind::Noop || known[id]) continue;
    ++report.operators;
    const std::vector<ir::TensorType> inputs = cost::input_types(graph, id);
    const cost::OpConfig config{node.op, node.attrs, inputs, node.outputs};
    const bool supported = !cost::gpu::cudnn_unsupported_reason(config).has_value();
    if (supported) {
      ++report.timed_nodes;
    } else {
      ++report.unsupported_ops[std::string(ir::to_string(node.op))];
    }
    auto [it, inserted] = index.emplace(cost::describe(config), distinct.size());
    if (inserted) {
      distinct.push_back(cost::OwnedOpConfig::from(config));
      uses.push_back(0);
      timed.push_back(supported);
    }
    ++uses[it->second];
  }
  report.distinct_configs = static_cast<int>(distinct.size());

  std::vector<cost::OwnedOpConfig> batch;
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (timed[i]) batch.push_back(distinct[i]);
  }
  report.timed_configs = static_cast<int>(batch.size());
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> ms(batch.size(), 0.0);
  std::vector<std::string> methods(batch.size(), "not timed (dry run)");
  if (timer != nullptr) {
    ms = timer->time_ms(batch);
    methods = timer->last_methods();
  }
  report.measure_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::unordered_map<std::string, double> measured;
  size_t next = 0;
  for (size_t i = 0; i < distinct.size(); ++i) {
    const cost::OpConfig config = distinct[i].view();
    const double analytic_ms = analytic.op_cost(config);
    nlohmann::ordered_json entry = {{"config", cost::describe(config)},
                                    {"op", std::string(ir::to_string(config.op))},
                                    {"nodes", uses[i]},
                                    {"analytic_ms", analytic_ms}};
    if (timed[i]) {
      measured.emplace(cost::describe(config), ms[next]);
      entry["cudnn_ms"] = ms[next];
      entry["method"] = methods.at(next);
      report.timed_part_ms += ms[next] * uses[i];
      ++next;
    } else {
      entry["cudnn_ms"] = nullptr;
      entry["unsupported"] = *cost::gpu::cudnn_unsupported_reason(config);
      report.fallback_part_ms += analytic_ms * uses[i];
    }
    report.configs.push_back(std::move(entry));
  }
  const TableCostModel table(measured, analytic);
  report.cudnn_cost_ms = cost::graph_cost(graph, table).total;
  report.analytic_cost_ms = cost::graph_cost(graph, analytic).total;
  return report;
}

std::string format(const char* spec, double value) {
  char text[64];
  std::snprintf(text, sizeof text, spec, value);
  return text;
}

std::string table(const std::vector<ModelReport>& reports, const std::string& fingerprint) {
  std::ostringstream out;
  out << "# GPU cost check\n\nTimer: cudnn, " << fingerprint << "\n\n"
      << "| model | operators | distinct configs | timed configs | fallback nodes | measuring s "
         "| cudnn cost ms (timed + fallback) | analytic cost ms | analytic / cudnn |\n"
      << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ModelReport& r : reports) {
    out << "| " << r.name << " | " << r.operators << " | " << r.distinct_configs << " | "
        << r.timed_configs << " | " << r.operators - r.timed_nodes << " | "
        << format("%.2f", r.measure_seconds) << " | " << format("%.4f", r.cudnn_cost_ms) << " ("
        << format("%.4f", r.timed_part_ms) << " + " << format("%.4f", r.fallback_part_ms) << ") | "
        << format("%.4f", r.analytic_cost_ms) << " | "
        << format("%.1f", r.cudnn_cost_ms > 0 ? r.analytic_cost_ms / r.cudnn_cost_ms : 0.0)
        << " |\n";
  }
  out << "\nThe cudnn cost prices each timed configuration at its measured median and the others "
         "(fallback nodes) with the analytic model, whose machine is one CPU core.\n";
  for (const ModelReport& r : reports) {
    if (r.unsupported_ops.empty()) continue;
    out << "\n" << r.name << " fallback nodes by operator:";
    for (const auto& [op, count] : r.unsupported_ops) out << " " << op << " " << count;
    out << "\n";
  }
  return out.str();
}

int run(int argc, char** argv) {
  std::filesystem::path out_dir = ".";
  bool reduced = false;
  bool dry_run = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (arg == "--reduced") {
      reduced = true;
    } else if (arg == "--dry-run") {
      dry_run = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "usage: gpu_cost_check [--out DIR] [--reduced] [--dry-run] [MODEL...]\n";
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      throw Error("unknown option " + arg + " (use --out DIR, --reduced, --dry-run, models)");
    } else {
      names.push_back(arg);
    }
  }
  if (names.empty()) names = kPaperModels;
  std::vector<const models::ModelInfo*> chosen;
  for (const std::string& name : names) {
    const models::ModelInfo* info = models::find_model(name);
    if (info == nullptr) {
      std::string known;
      for (const auto& model : models::all_models()) known += " " + model.name;
      throw Error("unknown model '" + name + "'; models:" + known);
    }
    chosen.push_back(info);
  }
  std::unique_ptr<cost::CudnnOpTimer> timer;
  std::string fingerprint = "dry run, nothing timed";
  if (!dry_run) {
    if (cost::cuda_device_count() == 0) {
      std::cerr << "gpu_cost_check: no CUDA device visible (cudaGetDeviceCount found none)\n";
      return 2;
    }
    timer = std::make_unique<cost::CudnnOpTimer>(0);
    fingerprint = timer->fingerprint();
  }
  const cost::AnalyticCostModel analytic;
  std::cout << "timer: cudnn, " << fingerprint << "\n";
  std::vector<ModelReport> reports;
  for (const models::ModelInfo* info : chosen) {
    std::cout << "measuring " << info->name << "..." << std::endl;
    reports.push_back(measure_model(*info, reduced, timer.get(), analytic));
  }

  nlohmann::ordered_json json = {{"backend", "cudnn"},
                                 {"fingerprint", fingerprint},
                                 {"dry_run", dry_run},
                                 {"reduced", reduced},
                                 {"models", nlohmann::ordered_json::array()}};
  for (const ModelReport& r : reports) {
    json["models"].push_back({{"name", r.name},
                              {"operators", r.operators},
                              {"timed_nodes", r.timed_nodes},
                              {"fallback_nodes", r.operators - r.timed_nodes},
                              {"distinct_configs", r.distinct_configs},
                              {"timed_configs", r.timed_configs},
                              {"measure_seconds", r.measure_seconds},
                              {"cudnn_cost_ms", r.cudnn_cost_ms},
                              {"cudnn_timed_part_ms", r.timed_part_ms},
                              {"cudnn_fallback_part_ms", r.fallback_part_ms},
                              {"analytic_cost_ms", r.analytic_cost_ms},
                              {"fallback_ops", r.unsupported_ops},
                              {"configs", r.configs}});
  }
  std::filesystem::create_directories(out_dir);
  const std::string text = table(reports, fingerprint);
  std::ofstream(out_dir / "gpu_cost_check.json") << json.dump(2) << "\n";
  std::ofstream(out_dir / "gpu_cost_check.md") << text;
  std::cout << "\n"
            << text << "\nwrote " << (out_dir / "gpu_cost_check.json").string() << " and "
            << (out_dir / "gpu_cost_check.md").string() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "gpu_cost_check: " << error.what() << "\n";
    return 1;
  }
}
