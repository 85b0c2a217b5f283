// Runs extractors on egraph-serialize JSON files and prints a table and one JSON line per run.
//
//   build/bin/extract_bench --time-limit 60 ../shared/data/egraphs/vgg.json
//   build/bin/extract_bench --methods ilp,ilp-real --mps-dir /tmp/mps FILE...
//
// Methods: bottom-up, greedy-dag, ilp (lazy cycle cuts), ilp-none, ilp-real, ilp-integer (cycle
// handling), ilp-cold (TENSAT's plain setup: no warm start, no reduction, real order variables).
// An ILP method may name its MILP solver after a colon, e.g. `ilp:cbc,ilp:highs` side by side;
// without one it uses --solver.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "extract/cbc_solver.h"
#include "extract/egraph_json.h"
#include "extract/extractor.h"
#include "extract/ilp_extractor.h"
#include "extract/problem_reduction.h"
#include "support/error.h"

using namespace saturate;
using namespace saturate::extract;

namespace {

// Best known DAG costs (shared/data/egraphs/README.md).
const std::map<std::string, double> kBestKnown = {
    {"vgg.json", 4.850757},
    {"vgg_acyclic.json", 4.866775},
    {"resnet50.json", 4.385795},
    {"resnet50_acyclic.json", 4.415993},
};

struct Method {
  std::string extractor;
  ExtractOptions options;
};

Method parse_method(const std::string& full_name, const ExtractOptions& base) {
  Method method{"ilp", base};
  std::string name = full_name;
  if (const auto colon = name.find(':'); colon != std::string::npos) {
    method.options.solver = name.substr(colon + 1);
    name.resize(colon);
  }
  if (name == "bottom-up" || name == "greedy-dag") {
    method.extractor = name;
  } else if (name == "ilp") {
    method.options.cycles = CycleHandling::lazy;
  } else if (name == "ilp-none") {
    method.options.cycles = CycleHandling::none;
  } else if (name == "ilp-real") {
    method.options.cycles = CycleHandling::real_order;
  } else if (name == "ilp-integer") {
    method.options.cycles = CycleHandling::integer_order;
  } else if (name == "ilp-cold") {
    method.options.cycles = CycleHandling::real_order;
    method.options.warm_start = false;
    method.options.reduce = false;
  } else {
    throw Error("unknown method '" + name + "'");
  }
  return method;
}

std::string cell(double value, int precision = 6) {
  if (!std::isfinite(value)) return "inf";
  std::ostringstream text;
  text.precision(precision);
  text << std::fixed << value;
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs Saturate's extractors on egraph-serialize JSON files"};
  std::vector<std::string> files;
  std::string methods_text = "bottom-up,greedy-dag,ilp";
  ExtractOptions base;
  std::string mps_dir;
  bool no_reduce = false, no_warm = false;
  app.add_option("files", files, "egraph-serialize JSON files")->required();
  app.add_option("--methods", methods_text, "comma-separated methods")->capture_default_str();
  app.add_option("--time-limit", base.time_limit_seconds, "seconds per ILP run")
      ->capture_default_str();
  app.add_option("--threads", base.threads, "MILP solver threads")->capture_default_str();
  app.add_option("--gap", base.relative_gap, "relative gap at which the MILP solver stops")
      ->capture_default_str();
  app.add_option("--solver", base.solver, "MILP solver: auto, highs, cbc")->capture_default_str();
  app.add_flag("--no-reduce", no_reduce, "skip problem reduction");
  app.add_flag("--no-warm-start", no_warm, "no greedy warm start");
  app.add_flag("--solver-log", base.solver_log, "print the MILP solver's log");
  app.add_option("--mps-dir", mps_dir, "also write each file's first ILP model as MPS here");
  CLI11_PARSE(app, argc, argv);
  base.reduce = !no_reduce;
  base.warm_start = !no_warm;

  std::vector<std::string> method_names;
  std::stringstream list(methods_text);
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) method_names.push_back(name);
  }

  std::vector<std::string> table;
  char line[512];
  std::snprintf(line, sizeof(line), "%-22s %-12s %12s %14s %8s %8s %9s %10s  %s", "file", "method",
                "dag cost", "tree cost", "acyclic", "optimal", "seconds", "gap %", "status");
  table.push_back(line);
  try {
    for (const std::string& file : files) {
      const ExtractionGraph graph = read_egraph_json(file);
      const std::string base_name = std::filesystem::path(file).filename().string();
      auto known = kBestKnown.find(base_name);
      if (!mps_dir.empty()) {
        ReductionOptions reduction;
        reduction.simplify = base.reduce;
        const ReducedProblem problem = reduce_problem(graph, reduction);
        const MilpProblem milp = build_extraction_milp(graph, problem, CycleHandling::none);
        write_mps(milp, (std::filesystem::path(mps_dir) / (base_name + ".mps")).string());
      }
      for (const std::string& method_name : method_names) {
        const Method method = parse_method(method_name, base);
        const ExtractionResult result =
            make_extractor(method.extractor)->extract(graph, method.options);
        const double gap = known == kBestKnown.end()
                               ? NAN
                               : 100 * (result.dag_cost - known->second) / known->second;
        std::snprintf(line, sizeof(line), "%-22s %-12s %12s %14s %8s %8s %9.2f %10s  %s",
                      base_name.c_str(), method_name.c_str(), cell(result.dag_cost).c_str(),
                      cell(result.tree_cost, 3).c_str(),
                      !result.found    ? "-"
                      : result.acyclic ? "yes"
                                       : "NO",
                      result.proven_optimal ? "yes" : "no", result.seconds,
                      std::isnan(gap) ? "-" : cell(gap, 4).c_str(), result.status.c_str());
        table.push_back(line);
        nlohmann::ordered_json record = {
            {"file", base_name},
            {"method", method_name},
            {"dag_cost", result.dag_cost},
            {"tree_cost", std::isfinite(result.tree_cost) ? nlohmann::ordered_json(result.tree_cost)
                                                          : nlohmann::ordered_json(nullptr)},
            {"acyclic", result.acyclic},
            {"optimal", result.proven_optimal},
            {"lower_bound", result.lower_bound},
            {"seconds", result.seconds},
            {"best_known", known == kBestKnown.end() ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(known->second)},
            {"gap_to_best_known_percent",
             std::isnan(gap) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gap)},
            {"status", result.status},
            {"solver", result.solver}};
        nlohmann::ordered_json statistics = nlohmann::ordered_json::object();
        for (const auto& [key, value] : result.statistics) {
          statistics[key] = std::isfinite(value) ? nlohmann::ordered_json(value)
                                                 : nlohmann::ordered_json(nullptr);
        }
        record["statistics"] = std::move(statistics);
        std::cout << record.dump() << std::endl;
      }
    }
  } catch (const Error& error) {
    std::cerr << "extract_bench: " << error.what() << "\n";
    return 1;
  }
  std::cout << "\n";
  for (const auto& row : table) std::cout << row << "\n";
  return 0;
}
