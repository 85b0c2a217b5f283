#include "driver/optimize_pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "cost/analytic_cost_model.h"
#include "driver/deployment_target.h"
#include "driver/file_checks.h"
#include "driver/json_output.h"
#include "driver/pending_output.h"
#include "driver/rules_loader.h"
#include "driver/search_stages.h"
#include "driver/session_fusion_guard.h"
#include "driver/shape_profiles.h"
#include "driver/verification.h"
#include "ir/dot_writer.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "onnx/onnx_export.h"
#include "onnx/onnxruntime_helper.h"
#include "support/atomic_file.h"
#include "support/deadline.h"
#include "support/error.h"
#include "support/python_helper.h"
#include "support/strings.h"
#include "support/temporary_directory.h"

namespace saturate::driver {
namespace {

// The run's one ONNX Runtime helper, started when first needed (by the cost model's timer or by
// the checks) and shared by both.
class OnnxruntimeConnection {
 public:
  explicit OnnxruntimeConnection(Deadline deadline) : deadline_(deadline) {}

  std::shared_ptr<onnx::OnnxruntimeHelper> get() {
    if (helper_ == nullptr) {
      try {
        helper_ =
            std::make_shared<onnx::OnnxruntimeHelper>(python_executable(), python_package_dir());
      } catch (const Error& error) {
        throw Error(std::string("ONNX Runtime checks need Python with onnxruntime: ") +
                    error.what());
      }
      helper_->set_deadline(deadline_);
    }
    return helper_;
  }

 private:
  Deadline deadline_;
  std::shared_ptr<onnx::OnnxruntimeHelper> helper_;
};

// The search's share of the time left after import; the rest is for the checks in ONNX
// Runtime (when they run) and writing.
constexpr double kSearchShareBeforeChecks = 0.6;
constexpr double kSearchShareAlone = 0.9;
// The latency check's share of the time left after the search, when verification follows it.
constexpr double kLatencyShareBeforeVerification = 0.4;
constexpr double kLatencyShareAlone = 0.8;

// The optimized ONNX model, exported once: in memory, or (when its weights go to external
// data) to a temporary file with its data beside it.
struct ExportedModel {
  std::string bytes;  // empty when written to `path` with external data
  std::string path;   // only with external data: weights in path + ".data"

  onnx::ModelSource source() const {
    return path.empty() ? onnx::ModelSource::in_memory(bytes) : onnx::ModelSource::file(path);
  }
};

class Pipeline {
 public:
  Pipeline(const ModelInput& input, const PipelineOptions& options)
      : input_(input),
        options_(options),
        deadline_(Deadline::after(options.time_limit)),
        onnxruntime_(deadline_) {}

  PipelineResult run();

 private:
  void check_files_before_work() const;
  void apply_defaults(const LoadedModel& loaded);
  std::unique_ptr<cost::CostModel> make_model(const ir::Graph& graph);
  ExportedModel export_model(const ir::Graph& graph, const onnx::OnnxModel& source,
                             const std::string& name);
  onnx::ModelSource original_source() const;
  bool writes_input_bytes(const onnx::OnnxModel& source) const;
  void check_onnx_model(SearchOutcome& outcome, PipelineResult& result);
  // --precision fp16: converts the model about to be written and checks it (the report's
  // precision_conversion).
  void convert_precision(PipelineResult& result);
  // The input shapes ONNX Runtime's checks feed: the pins, or the graph's inputs at each
  // profile, then (verification only) at the adversarial bindings.
  std::vector<onnx::InputShapes> check_shapes(const onnx::OnnxModel& source,
                                              const ir::Graph& original, bool verification) const;
  void write_outputs(const PipelineResult& result) const;
  bool checks_in_onnxruntime(const LoadedModel& loaded) const;
  // Ends the current phase when the command's deadline has passed.
  void stop_if_past_deadline() const;
  // What the run keeps when the deadline stopped `phase_`: the original, costs unknown.
  SearchOutcome keep_original_at_deadline(const ir::Graph& original);

  const ModelInput& input_;
  PipelineOptions options_;
  // The whole command's (--time-limit), from import to write; every phase ends by it.
  Deadline deadline_;
  std::string phase_ = "importing the model";
  std::string deadline_stopped_;  // the phase the deadline stopped, empty when none
  OnnxruntimeConnection onnxruntime_;
  size_t onnx_exports_ = 0;
  std::optional<ExportedModel> exported_;
  std::unique_ptr<TemporaryDirectory> external_exports_;  // made only when one is needed
  // The shape profiles of a graph with symbolic dims (empty for a static one).
  std::vector<ShapeProfile> profiles_;
  std::vector<ShapeProfile> adversarial_;
};

void Pipeline::check_files_before_work() const {
  std::vector<std::string> inputs = options_.rule_files;
  inputs.insert(inputs.end(), options_.tensat_multi_files.begin(),
                options_.tensat_multi_files.end());
  inputs.insert(inputs.end(), options_.pypm_files.begin(), options_.pypm_files.end());
  if (input_.reads_a_file()) inputs.push_back(input_.spec);
  const OutputFiles& out = options_.outputs;
  check_outputs(inputs, {{"-o", out.model},
                         {"--json", out.json},
                         {"--dot", out.dot},
                         {"--egraph-json", out.egraph_json},
                         {"--egraph-dot", out.egraph_dot}});
  if (!(options_.time_limit > 0)) {
    throw Error("the time limit must be a positive number of seconds, not " +
                format_double(options_.time_limit));
  }
  if (options_.no_rules && (!options_.rule_files.empty() || !options_.tensat_multi_files.empty())) {
    throw Error("--no-rules contradicts --rules/--tensat-multi");
  }
  if (options_.search == "taso" && !options_.pypm_files.empty()) {
    throw Error("--pypm works with --search eqsat only");
  }
  if (options_.search == "taso" && (!out.egraph_json.empty() || !out.egraph_dot.empty())) {
    throw Error(
        "--egraph-json and --egraph-dot work with --search eqsat only (TASO's search "
        "builds no e-graph)");
  }
}

void Pipeline::apply_defaults(const LoadedModel& loaded) {
  const bool onnx_input = loaded.onnx != nullptr;
  // Optimize for the runtime the model is deployed on: an ONNX model is priced by timing its
  // operators in ONNX Runtime.
  if (options_.cost.kind.empty()) options_.cost.kind = onnx_input ? "onnxruntime" : "analytic";
  if (options_.target.empty()) options_.target = default_target(onnx_input);
  // ONNX Runtime times and checks at its own default when no thread count is given (a
  // deployment that says nothing gets that too); the report shows the count.
  if (onnx_input || options_.cost.kind == "onnxruntime") {
    options_.cost.threads = onnxruntime_threads(options_.cost.threads);
  }
  check_onnx_output(options_.outputs.model, onnx_input, input_.spec);
}

// A size a profile gives a name the model relates to others (total_sequence_length =
// past_sequence_length + sequence_length) must be the value of that expression; it is then
// dropped, since the name is no symbol of its own.
void drop_related_sizes(ShapeProfile& profile, const std::map<std::string, std::string>& related) {
  for (const auto& [name, expression] : related) {
    auto given = profile.sizes.find(name);
    if (given == profile.sizes.end()) continue;
    auto dim = ir::parse_dim(expression);
    std::optional<int64_t> value = dim ? ir::to_expr(*dim).evaluate(profile.sizes) : std::nullopt;
    if (value && *value != given->second) {
      throw Error("profile '" + profile.name + "': " + name + "=" + std::to_string(given->second) +
                  ", but the model makes " + name + " equal to " + expression +
                  ", which this profile makes " + std::to_string(*value));
    }
    profile.sizes.erase(given);
  }
}

std::unique_ptr<cost::CostModel> Pipeline::make_model(const ir::Graph& graph) {
  std::unique_ptr<cost::CostModel> model = options_.cost.kind == "onnxruntime"
                                               ? make_cost_model(options_.cost, onnxruntime_.get())
                                               : make_cost_model(options_.cost);
  return price_at_profiles(std::move(model), graph, profiles_);
}

std::vector<onnx::InputShapes> Pipeline::check_shapes(const onnx::OnnxModel& source,
                                                      const ir::Graph& original,
                                                      bool verification) const {
  if (profiles_.empty()) return check_input_shapes(source);
  std::vector<onnx::InputShapes> shapes;
  auto add = [&](const ShapeProfile& profile) {
    onnx::InputShapes inputs = source.pinned_input_shapes;
    for (ir::NodeId id : original.inputs()) {
      const ir::Node& node = original.node(id);
      inputs[node.name()] = concrete_dims(node.outputs[0].dims, profile);
    }
    shapes.push_back(std::move(inputs));
  };
  for (const auto& profile : profiles_) add(profile);
  if (verification) {
    for (const auto& profile : adversarial_) add(profile);
  }
  return shapes;
}

ExportedModel Pipeline::export_model(const ir::Graph& graph, const onnx::OnnxModel& source,
                                     const std::string& name) {
  ExportedModel exported;
  ++onnx_exports_;
  if (onnx::writes_external_data(graph, source,
                                 external_data_mode(options_.outputs.external_data))) {
    // Past what one protobuf holds (or asked for): streamed to a file, weights beside it.
    if (!external_exports_) {
      external_exports_ = std::make_unique<TemporaryDirectory>(
          "saturate-check", "for models with external data checked in ONNX Runtime");
    }
    exported.path = external_exports_->file(name);
    onnx::write_onnx(graph, source, exported.path, onnx::ExternalData::On);
    return exported;
  }
  exported.bytes = onnx::export_onnx(graph, source);  // checked, timed and written as it is
  return exported;
}

onnx::ModelSource Pipeline::original_source() const {
  // The input's own path when it has one, so that its external data resolves beside it.
  if (input_.reads_a_file()) return onnx::ModelSource::file(input_.spec);
  return onnx::ModelSource::in_memory(*input_.onnx_bytes);
}

bool Pipeline::writes_input_bytes(const onnx::OnnxModel& source) const {
  // The input's own bytes are the output when the original is kept, unless its weights live in
  // an external data file (whose name the output must carry) or the output must have one.
  return source.external_tensors == 0 && options_.outputs.external_data != "on";
}

bool Pipeline::checks_in_onnxruntime(const LoadedModel& loaded) const {
  return loaded.onnx != nullptr &&
         (options_.verify || (options_.cost.kind == "onnxruntime" && options_.latency_runs > 0));
}

void Pipeline::stop_if_past_deadline() const {
  if (deadline_.expired()) throw DeadlinePassed("the time limit came while " + phase_);
}

SearchOutcome Pipeline::keep_original_at_deadline(const ir::Graph& original) {
  deadline_stopped_ = phase_;
  SearchOutcome outcome;
  outcome.graph = original;
  outcome.kept_original = true;
  outcome.original_cost = outcome.optimized_cost = std::numeric_limits<double>::quiet_NaN();
  outcome.report = nlohmann::ordered_json::object();  // no search statistics to give
  outcome.stop_description = "time limit (" + format_double(options_.time_limit) +
                             " s, --time-limit): reached while " + phase_ +
                             "; the original model is kept";
  return outcome;
}

// A value of the graph computed in bfloat16, which ONNX Runtime's CPU provider cannot run for
// most operators (its name), or nothing.
std::optional<std::string> bfloat16_value(const ir::Graph& graph) {
  for (ir::NodeId id = 0; id < graph.num_nodes(); ++id) {
    const ir::Node& node = graph.node(id);
    if (ir::op_info(node.op).is_leaf()) continue;
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k].dtype == ir::DType::BF16) {
        return graph.value_name({id, static_cast<uint32_t>(k)});
      }
    }
  }
  return std::nullopt;
}

void Pipeline::check_onnx_model(SearchOutcome& outcome, PipelineResult& result) {
  const onnx::OnnxModel& source = *result.onnx_source;
  if (!outcome.kept_original) exported_ = export_model(outcome.graph, source, "optimized.onnx");
  const bool time_it =
      exported_ && options_.cost.kind == "onnxruntime" && options_.latency_runs > 0;
  const bool verify_it = exported_ && options_.verify;
  std::optional<onnx::ModelCheckAnswer> answer;
  if (time_it || verify_it) {
    onnx::ModelCheckRequest request;
    request.latency_runs = time_it ? options_.latency_runs : 0;
    // Within the command's deadline, leaving verification its part.
    request.latency_budget_seconds =
        std::min(options_.latency_budget,
                 deadline_.seconds_left() *
                     (verify_it ? kLatencyShareBeforeVerification : kLatencyShareAlone));
    request.threads = onnxruntime_threads(options_.cost.threads);
    request.verify = verify_it;
    request.input_shapes = check_shapes(source, result.original, verify_it);
    // The profiles must run; the adversarial sizes after them are probes.
    if (!profiles_.empty()) request.required_input_shapes = profiles_.size();
    // Several profiles are timed together, weighted as extraction weighs their costs.
    if (profiles_.size() > 1) {
      for (const ShapeProfile& profile : profiles_)
        request.latency_weights.push_back(profile.weight);
    }
    std::string steps;
    if (time_it)
      steps += " timing both models (up to " + std::to_string(request.latency_runs) +
               " paired runs, until the test decides or " + format_double(options_.latency_budget) +
               " s)";
    if (verify_it) steps += std::string(time_it ? "," : "") + " comparing their outputs";
    std::fprintf(stderr, "checking in ONNX Runtime:%s\n", steps.c_str());
    phase_ = "checking in ONNX Runtime";
    try {
      stop_if_past_deadline();
      answer = onnxruntime_.get()->check_models(original_source(), exported_->source(), request);
    } catch (const DeadlinePassed&) {
      // Neither verified nor timed: the original is what the run can stand behind.
      outcome = keep_original_at_deadline(result.original);
      exported_.reset();
    }
  }
  if (answer && answer->latency) {
    const onnx::LatencyComparison& latency = *answer->latency;
    result.report["latency_check"] = {
        {"runtime", "onnxruntime"},
        {"runs", latency.runs},
        {"original_median_ms", latency.original_ms},
        {"optimized_median_ms", latency.optimized_ms},
        {"verdict", latency.verdict},
        {"speedup", latency.speedup},
        // JSON has no infinity: an end too few rounds leave unbounded is null.
        {"speedup_interval",
         {latency.speedup_low > 0 ? nlohmann::json(latency.speedup_low) : nlohmann::json(nullptr),
          std::isfinite(latency.speedup_high) ? nlohmann::json(latency.speedup_high)
                                              : nlohmann::json(nullptr)}},
        {"confidence", latency.confidence},
        {"kept", latency.keeps_optimized() ? "optimized" : "original"}};
    const std::vector<onnx::InputShapes> shapes = check_shapes(source, result.original, false);
    if (!shapes.empty()) result.report["latency_check"]["input_shapes"] = shapes.front();
    if (profiles_.size() > 1) {
      // The medians are of the weighted sums of one run at each profile.
      nlohmann::ordered_json timed = nlohmann::ordered_json::array();
      for (const ShapeProfile& profile : profiles_) timed.push_back(profile.name);
      result.report["latency_check"]["profiles"] = timed;
    }
    if (!latency.keeps_optimized()) {
      outcome.graph = result.original;
      outcome.optimized_cost = outcome.original_cost;
      outcome.kept_original = true;
      exported_.reset();
    }
  }
  result.optimized = outcome.graph;
  if (exported_) {
    result.onnx_bytes = exported_->bytes;
    if (answer && answer->verification) {
      result.verified = record_onnxruntime_verification(*answer->verification, result.report);
    }
    return;
  }
  // The original is kept.
  if (writes_input_bytes(source)) {
    result.onnx_bytes = input_.onnx_bytes ? *input_.onnx_bytes : read_file(input_.spec);
    if (options_.verify) record_identical_model(result.report);
    return;
  }
  // Its weights are in external data: the output is a re-export of the original, checked too
  // (unless the deadline has passed: then it is the same export every run writes, unchecked).
  exported_ = export_model(result.original, source, "original-export.onnx");
  if (options_.verify && deadline_stopped_.empty()) {
    result.verified = verify_in_onnxruntime(
        *onnxruntime_.get(), original_source(), exported_->source(),
        check_shapes(source, result.original, true), result.report,
        profiles_.empty() ? std::nullopt : std::optional<size_t>(profiles_.size()));
  }
  result.onnx_bytes = exported_->bytes;
}

void Pipeline::convert_precision(PipelineResult& result) {
  if (options_.precision == "keep") return;
  const std::string name = result.original.name();
  if (result.onnx_bytes.empty()) {
    throw Error("--precision fp16: the weights of " + name +
                " go to external data, which the float16 conversion does not handle yet");
  }
  phase_ = "converting to float16";
  stop_if_past_deadline();
  std::fprintf(stderr, "converting to float16 and comparing it with the original\n");
  TemporaryDirectory folder("saturate-precision", "for the float16 conversion");
  const std::string converted = folder.file("converted.onnx");
  nlohmann::json request = {
      {"keep_io_types", options_.keep_io_types},
      {"keep_fp32", options_.keep_fp32},
      {"budget", options_.precision_budget},
      {"input_shapes", check_shapes(*result.onnx_source, result.original, true)}};
  if (!profiles_.empty()) request["required_input_shapes"] = profiles_.size();
  nlohmann::json answer;
  try {
    answer = onnxruntime_.get()->convert_to_float16(onnx::ModelSource::in_memory(result.onnx_bytes),
                                                    original_source(), converted, request);
  } catch (const DeadlinePassed&) {
    throw Error(
        "the time limit (--time-limit) came while converting to float16; nothing "
        "written");
  }
  const nlohmann::json& check = answer.at("check");
  result.precision_within_budget = answer.at("ok").get<bool>();
  result.report["precision_conversion"] = {
      {"precision", "float16"},
      {"within_budget", result.precision_within_budget},
      {"budget", answer.at("budget")},
      {"max_abs_error", check.at("max_abs_error")},
      {"max_rel_error", check.at("max_rel_error")},
      {"outputs", output_differences(check)},
      {"input_shapes", check.value("shapes", nlohmann::json::array())},
      {"keep_io_types", options_.keep_io_types},
      {"kept_in_float32", answer.at("kept_in_float32")},
      {"converted_nodes", answer.at("converted_nodes")},
      {"float32_nodes", answer.at("float32_nodes")}};
  result.onnx_bytes = read_file(converted);
}

void Pipeline::write_outputs(const PipelineResult& result) const {
  const OutputFiles& out = options_.outputs;
  // A model that failed verification, or whose float16 conversion erred past its budget, is not
  // written (unless keep_unverified); the report is, with the verdict.
  const bool write_model =
      (result.verified && result.precision_within_budget) || options_.keep_unverified;
  if (write_model && !out.model.empty()) {
    if (!ends_with(out.model, ".onnx")) {
      write_file_atomically(out.model, ir::write_text(result.optimized));
    } else if (!result.onnx_bytes.empty()) {
      write_file_atomically(out.model, result.onnx_bytes);  // the buffer checked above
    } else {
      // Weights in external data: the output's data file is named after it, so the model is
      // written again beside it (streamed; the checked export used a temporary name).
      onnx::write_onnx(result.optimized, *result.onnx_source, out.model,
                       external_data_mode(out.external_data));
    }
  }
  if (write_model && !out.dot.empty())
    write_file_atomically(out.dot, ir::write_dot(result.optimized));
  if (!out.json.empty()) write_file_atomically(out.json, dump_json(result.report));
}

PipelineResult Pipeline::run() {
  check_files_before_work();
  LoadedModel loaded = load_model(input_);
  if (options_.precision != "keep" && loaded.onnx == nullptr) {
    throw Error("--precision " + options_.precision + " converts ONNX models; " +
                loaded.graph.name() + " is not one");
  }
  apply_defaults(loaded);
  if (const auto value = bfloat16_value(loaded.graph);
      value &&
      (options_.verify || (options_.cost.kind == "onnxruntime" && options_.latency_runs > 0))) {
    throw Error(loaded.graph.name() + " computes in bfloat16 (" + *value +
                "), which ONNX Runtime's CPU provider has no kernels for (MatMul, Add, ...): it "
                "can neither time nor verify the model; optimize it with --latency-runs 0 and "
                "without --verify");
  }
  eqsat::RuleSet rules = options_.no_rules
                             ? eqsat::RuleSet{}
                             : load_rule_sets(options_.rule_files, options_.tensat_multi_files);
  // TASO's search applies rule files only; no_rules means no rules at all.
  const bool fuse = !options_.no_rules && options_.search == "eqsat";
  FusionLibraries fusions =
      fuse ? target_fusions(options_.target, options_.fusions) : FusionLibraries{};
  if (!graph_symbols(loaded.graph).empty()) {
    std::vector<ShapeProfile> given;
    for (const std::string& text : options_.profiles) {
      given.push_back(parse_shape_profile(text));
      if (loaded.onnx != nullptr) drop_related_sizes(given.back(), loaded.onnx->related_dims);
    }
    profiles_ = complete_profiles(loaded.graph, std::move(given));
    adversarial_ = adversarial_bindings(loaded.graph, profiles_);
  } else if (!options_.profiles.empty()) {
    throw Error("--profile gives sizes of symbolic dimensions, but " + loaded.graph.name() +
                " has none (every dimension is static)");
  }
  PendingOutput egraph_json(options_.outputs.egraph_json);
  PendingOutput egraph_dot(options_.outputs.egraph_dot);
  std::unique_ptr<cost::CostModel> model;
  SearchOutcome outcome;
  std::optional<SessionFusionGuards> guards;
  try {
    stop_if_past_deadline();
    phase_ = "starting the cost model";
    model = make_model(loaded.graph);
    phase_ = "searching (measuring operators, exploring, extracting)";
    const Deadline search_deadline = deadline_.sooner(
        deadline_.seconds_left() *
        (checks_in_onnxruntime(loaded) ? kSearchShareBeforeChecks : kSearchShareAlone));
    outcome = options_.search == "taso"
                  ? run_taso_baseline(loaded.graph, rules, *model, options_, search_deadline)
                  : run_equality_saturation(loaded.graph, rules, fusions, *model, options_,
                                            search_deadline, egraph_json.temporary(),
                                            egraph_dot.temporary());
    if (loaded.onnx != nullptr && options_.session_guards && options_.cost.kind == "onnxruntime") {
      phase_ = "measuring residual norms (session fusion guards)";
      model->set_measurement_deadline(deadline_);
      guards = guard_session_fusions(outcome.graph, *model);
      // A respelled original is a new model: exported, timed against the input and verified.
      if (guards->guarded > 0) outcome.kept_original = false;
    }
  } catch (const DeadlinePassed&) {
    outcome = keep_original_at_deadline(loaded.graph);
    guards.reset();
    // Nothing was priced; the report names a model all the same.
    if (model == nullptr) model = std::make_unique<cost::AnalyticCostModel>();
  }

  PipelineResult result;
  result.original = std::move(loaded.graph);
  result.onnx_source = loaded.onnx;
  // The fields every search reports, filled in below once the checks decided what is kept;
  // then the search's own statistics.
  result.report = {{"model", result.original.name()},
                   {"search", options_.search},
                   {"cost_model", model->name()},
                   {"original_cost", outcome.original_cost},
                   {"optimized_cost", nullptr},
                   {"speedup_percent", nullptr},
                   {"original_ops", result.original.num_operators()},
                   {"optimized_ops", nullptr},
                   {"kept_original", nullptr}};
  result.report.update(outcome.report);
  result.report["session_fusion_guards"] =
      guards ? nlohmann::ordered_json(guards->to_json()) : nlohmann::ordered_json(nullptr);
  result.report["latency_check"] = nullptr;
  result.report["verified"] = nullptr;
  result.report["max_abs_error"] = nullptr;
  if (result.onnx_source) {
    check_onnx_model(outcome, result);
    convert_precision(result);
  } else {
    result.optimized = outcome.graph;
    if (options_.verify) {
      result.verified = verify_rewrite(result.original, result.optimized, result.report);
    }
  }
  nlohmann::ordered_json& report = result.report;
  report["kept_original"] = outcome.kept_original;
  report["time_limit"] = options_.time_limit;
  report["time_limit_reached_while"] = deadline_stopped_.empty()
                                           ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(deadline_stopped_);
  // The respelled norms are in the output only when the optimized model is.
  if (guards)
    report["session_fusion_guards"]["written"] = guards->guarded > 0 && !outcome.kept_original;
  // Unknown (null) when the deadline stopped the search before the costs were known.
  auto cost_or_null = [](double cost) {
    return std::isnan(cost) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cost);
  };
  report["original_cost"] = cost_or_null(outcome.original_cost);
  report["optimized_cost"] = cost_or_null(outcome.optimized_cost);
  report["speedup_percent"] = cost_or_null(outcome.speedup_percent());
  report["optimized_ops"] = result.optimized.num_operators();
  if (options_.search == "eqsat") {
    // What the written model uses: none when the latency check kept the original (the search
    // reported the extracted graph's).
    auto fused = fused_operator_counts(result.original, result.optimized);
    // A rotary embedding whose tables do not repeat their halves is written as its formula.
    size_t formulas = result.onnx_source ? onnx::rotary_embeddings_written_as_formula(
                                               result.optimized, *result.onnx_source)
                                         : 0;
    if (formulas > 0) {
      const std::string rotary(ir::to_string(ir::OpKind::RotaryEmbedding));
      if ((fused[rotary] -= formulas) == 0) fused.erase(rotary);
    }
    report["fused_operators"] = fused;
    report["rotary_embeddings_written_as_formula"] = formulas;
  }
  add_cost_model_report(*model, report);
  report["cost_threads"] = options_.cost.threads;
  report["input_format"] = loaded.format;
  report["shape_profiles"] =
      profiles_.empty() ? nlohmann::ordered_json(nullptr) : to_json(profiles_);
  if (!profiles_.empty()) {
    report["symbols"] = graph_symbols(result.original);
    report["verification_profiles"] = to_json(adversarial_);
    nlohmann::ordered_json assumed = nlohmann::ordered_json::array();
    for (const auto& assumption : ir::assumptions()) {
      assumed.push_back(
          {{"dimension", ir::dim_to_string(assumption.dim)},
           {"at_most", ir::is_symbolic(assumption.bound)
                           ? nlohmann::ordered_json(ir::dim_to_string(assumption.bound))
                           : nlohmann::ordered_json(assumption.bound)},
           {"reason", assumption.reason}});
    }
    report["assumptions"] = assumed;
  }
  report["opaque_nodes"] = result.original.nodes_of(ir::OpKind::Opaque).size();
  report["folded_nodes"] = result.onnx_source ? nlohmann::json(result.onnx_source->folded_nodes)
                                              : nlohmann::json(nullptr);
  report["onnx_exports"] = onnx_exports_;
  result.search_summary = outcome.stop_description;
  result.cost_summary = cost_model_summary(*model);

  phase_ = "writing";
  write_outputs(result);
  if ((result.verified && result.precision_within_budget) || options_.keep_unverified) {
    egraph_json.commit();
    egraph_dot.commit();
  }
  return result;
}

}  // namespace

PipelineResult run_pipeline(const ModelInput& input, const PipelineOptions& options) {
  return Pipeline(input, options).run();
}

}  // namespace saturate::driver
