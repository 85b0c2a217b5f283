#pragma once

// The main job as one object: load -> optimize (equality saturation, or TASO's search as the
// baseline) -> extract -> latency check -> verify -> write. `saturate optimize` and
// `saturate.optimize` are thin layers over run_pipeline and give the same report for the same
// input and options; every default is declared once, here.
//
// An ONNX model is exported once, in memory; that one buffer is timed, verified and written (a
// model whose weights go to an external data file is written to disk instead, once for the
// checks and once for -o). When the original is kept, an ONNX input's own bytes are the output.
// Every ONNX Runtime step of a run (operator timing, the latency check, verification) goes to
// one helper process (onnx/onnxruntime_helper.h).
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "driver/cost_model_factory.h"
#include "driver/model_loader.h"
#include "ir/graph.h"
#include "onnx/onnx_model.h"

namespace saturate::driver {

// The files a run writes, each through a temporary name and only once everything succeeded;
// the model, its DOT and the e-graph files only when verified (or keep_unverified). Empty: not
// written.
struct OutputFiles {
  std::string model;  // .sxp, or .onnx for an ONNX input
  std::string json;   // the report
  std::string dot;    // the optimized graph as Graphviz DOT
  std::string egraph_json;
  std::string egraph_dot;
  std::string external_data = "auto";  // an ONNX output's weights in OUT.onnx.data: auto|on|off
};

struct PipelineOptions {
  std::vector<std::string> rule_files;  // empty: the shipped library
  std::vector<std::string> tensat_multi_files;
  std::vector<std::string> pypm_files;  // compiled PyPM rules added to the e-graph
  bool no_rules = false;                // not even the shipped library
  // onnxruntime (may fuse into com.microsoft kernels) or onnx; empty: onnxruntime for an ONNX
  // input, onnx otherwise.
  std::string target;
  // The ONNX Runtime kernels the target may fuse into (IR names, or "none"); empty: all.
  std::vector<std::string> fusions;
  size_t node_limit = 50'000;
  bool node_limit_given = false;  // an explicit node limit replaces the node budget
  bool no_budget = false;         // neither the node budget nor the match budget
  size_t iteration_limit = 15;
  size_t k_multi = 1;
  bool multi_same_class = false;
  // Seconds for the whole run, import to write (optimize_pipeline.cpp shares it out); when it
  // runs out the original is kept and the report says where.
  double time_limit = 600;
  std::string cycle_filter = "efficient";  // or vanilla
  std::string extractor = "ilp";           // ilp, greedy (= greedy-dag), greedy-dag, bottom-up
  std::string ilp_cycles = "none";         // none, lazy, real, int
  double ilp_time_limit = 600;
  std::string ilp_solver = "auto";
  bool backoff = false;
  std::string search = "eqsat";  // or taso
  double alpha = 1.05;           // taso
  size_t budget = 100;           // taso
  // Empty kind: onnxruntime for an ONNX input, analytic otherwise. Threads 0: one per physical
  // core for onnxruntime (its own default), the OpenMP default for onednn.
  CostModelOptions cost;
  // Concrete sizes of a model's symbolic dims (`batch=1,sequence=128[@WEIGHT]`) at which costs,
  // extraction and the latency check run (driver/shape_profiles.h); empty: one default profile
  // (batch 1, other lengths 128). Ignored for a model without symbolic dims, which is an error
  // only when profiles are given.
  std::vector<std::string> profiles;
  // ONNX input priced by onnxruntime: the whole-model check, at most this many paired rounds
  // (0: off), stopped once the sequential test decides or the budget (seconds) is spent
  // (python/saturate/latency_verdict.py).
  int latency_runs = 200;
  double latency_budget = 5;
  // ONNX input priced by onnxruntime: write residual norms so that ONNX Runtime's session-time
  // SkipLayerNormFusion leaves them alone where its kernel measures slower
  // (session_fusion_guard.h).
  bool session_guards = true;
  bool verify = false;
  bool keep_unverified = false;  // write (and return) the outputs even when verify fails
  // ONNX input: "fp16" converts the written model's arithmetic to float16 after optimization
  // (python/saturate/precision_conversion.py) and checks it against the original: each
  // output's largest difference at most `precision_budget` of its range, or nothing is written
  // but the report; "keep" leaves the precision as it is.
  std::string precision = "keep";
  bool keep_io_types = true;           // graph inputs and outputs keep their types (Casts)
  std::vector<std::string> keep_fp32;  // operator types left in float32 besides the defaults
  double precision_budget = 1e-2;
  OutputFiles outputs;
};

struct PipelineResult {
  ir::Graph original;
  ir::Graph optimized;
  std::shared_ptr<const onnx::OnnxModel> onnx_source;  // set for an ONNX input
  // An ONNX input's output model (the optimized export, or the input's own bytes when the
  // original is kept); empty when its weights went to external data.
  std::string onnx_bytes;
  bool verified = true;  // false only when verification ran and found a mismatch
  // False only when a --precision conversion erred past its budget (nothing written but the
  // report, as for a failed verification).
  bool precision_within_budget = true;
  // "cost model onnxruntime: 12 configurations measured ..." (empty for the analytic model).
  std::string cost_summary;
  // How the search went, for people: "exploration: 9 iterations, stopped by ...", one line each.
  std::string search_summary;
  nlohmann::ordered_json report;

  // The report: the model, costs, e-graph and extraction statistics, the rules that matched,
  // the latency check and the verification verdict (docs/ONNX.md lists the fields).
  const nlohmann::ordered_json& to_json() const { return report; }
};

// Runs the pipeline. Every output is checked writable (and distinct from every input) before
// any work. Throws saturate::Error on bad input or a failed step; a verification mismatch is
// not an exception: `verified` is false and only the JSON report was written (unless
// keep_unverified).
PipelineResult run_pipeline(const ModelInput& input, const PipelineOptions& options);

}  // namespace saturate::driver
