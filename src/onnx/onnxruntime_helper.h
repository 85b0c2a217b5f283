#pragma once

// The one long-lived ONNX Runtime process of a run: `python3 -m saturate.ort_helper --serve`
// (python/saturate/ort_helper.py), which times one-operator models for the measured cost model
// and runs the whole-model checks of `optimize` (latency and verification, ort_check.py).
// ONNX Runtime has no C++ package on Debian, and its Python wheel is what users install, so
// the Python helper is the interface to it; one process imports numpy and onnxruntime once.
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/tensor_type.h"
#include "onnx/latency_comparison.h"
#include "support/deadline.h"

namespace saturate {
class ChildProcess;
}

namespace saturate::onnx {

// Concrete shapes of a model's inputs (input name -> dims): one assignment of its dynamic
// dimensions. Inputs not named are fed at the shape the models declare, which must be static.
using InputShapes = std::map<std::string, ir::Dims>;

// What a check asks for: at most `latency_runs` interleaved rounds of the two models (0: no
// timing), stopped once the sequential test decides or `latency_budget_seconds` is spent (0:
// every round), at `threads` intra-op threads, and whether to compare their outputs.
// `input_shapes`: the assignments the models are fed at (sent as "input_shapes", a list of {name:
// dims}): the comparison runs at every one (all must match; its answer lists them as "shapes"), the
// timing at the first, or, with `latency_weights`, at as many of the first as it has weights (each
// round runs both models at every one and compares the weighted sums); empty: once, at the
// models' declared static shapes.
struct ModelCheckRequest {
  int latency_runs = 0;
  double latency_budget_seconds = 0;
  int threads = 1;
  bool verify = false;
  std::vector<InputShapes> input_shapes;
  // How many of `input_shapes` must run (the rest are probes that verification leaves out,
  // and reports, where the original model itself fails); all when unset.
  std::optional<size_t> required_input_shapes;
  // The weights of the shape profiles the latency check times (the first of `input_shapes`);
  // empty: the first assignment alone.
  std::vector<double> latency_weights;
};

// A model the helper runs: its bytes, sent after the request (no file is written), or its path
// when its weights live in external data files that must resolve beside it.
struct ModelSource {
  std::string_view bytes;  // used when `path` is empty; must outlive the request
  std::string path;

  static ModelSource in_memory(std::string_view bytes) { return ModelSource{bytes, ""}; }
  static ModelSource file(std::string path) { return ModelSource{{}, std::move(path)}; }
};

// How a request names models: a path as a string, bytes as {"attachment": index} into the
// attachments sent after it (python/saturate/line_server.py).
class ModelReferences {
 public:
  nlohmann::json add(const ModelSource& model);
  const std::vector<std::string_view>& attachments() const { return attachments_; }

 private:
  std::vector<std::string_view> attachments_;
};

struct ModelCheckAnswer {
  std::optional<LatencyComparison> latency;
  // saturate.onnx_check's CheckResult as JSON (ok, precision, max_abs_error, outputs, ...).
  std::optional<nlohmann::json> verification;
};

class OnnxruntimeHelper {
 public:
  // Starts `PYTHON -m saturate.ort_helper --serve` with `python_dir` first on PYTHONPATH. Throws
  // saturate::Error when Python or onnxruntime is missing.
  OnnxruntimeHelper(const std::string& python, const std::string& python_dir);
  ~OnnxruntimeHelper();
  OnnxruntimeHelper(const OnnxruntimeHelper&) = delete;
  OnnxruntimeHelper& operator=(const OnnxruntimeHelper&) = delete;

  // Every request from now on must be answered by `deadline` (the whole command's): past it the
  // helper is killed and the request throws DeadlinePassed.
  void set_deadline(Deadline deadline) { deadline_ = deadline; }

  // One request and its answer (an object); throws saturate::Error with the helper's message
  // when it answers an error, naming `what`. `attachments` are the bytes the request refers to.
  nlohmann::json ask(const nlohmann::json& request, const std::string& what,
                     const std::vector<std::string_view>& attachments = {});

  // Runs both models as asked.
  ModelCheckAnswer check_models(const ModelSource& original, const ModelSource& optimized,
                                const ModelCheckRequest& request);

  // Converts `model` to float16 into the file `out` and compares it with `original`
  // (python/saturate/precision_conversion.py): `options` holds keep_io_types, keep_fp32,
  // budget, input_shapes and required_input_shapes. Answers what convert_and_check returns.
  nlohmann::json convert_to_float16(const ModelSource& model, const ModelSource& original,
                                    const std::string& out, nlohmann::json options);

 private:
  static void read_check_answer(const nlohmann::json& answer, const ModelCheckRequest& request,
                                ModelCheckAnswer& result);

  std::unique_ptr<ChildProcess> process_;
  Deadline deadline_ = Deadline::never();
};

}  // namespace saturate::onnx
