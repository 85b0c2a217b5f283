#include "onnx/onnxruntime_op_timer.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cost/one_node_graph.h"
#include "onnx/onnx_export.h"
#include "onnx/random_weights.h"
#include "support/child_process.h"
#include "support/error.h"
#include "support/json_helper_client.h"
#include "support/python_helper.h"

namespace saturate::onnx {
OnnxruntimeOpTimer::OnnxruntimeOpTimer(OnnxruntimeTimerOptions options)
    : options_(std::move(options)) {
  try {
    helper_ = options_.helper != nullptr
                  ? options_.helper
                  : std::make_shared<OnnxruntimeHelper>(options_.python, options_.python_dir);
    fingerprint_ = helper_->ask({{"fingerprint", true}, {"threads", options_.threads}},
                                "onnxruntime timer")["fingerprint"];
  } catch (const Error& error) {
    throw Error(std::string("--cost onnxruntime needs Python with onnxruntime: ") + error.what());
  }
}

OnnxruntimeOpTimer::~OnnxruntimeOpTimer() {
  helper_.reset();  // the last owner closes its input: the helper exits
}

bool OnnxruntimeOpTimer::supports(const cost::OpConfig& config) const {
  const ir::OpKind op = config.op;
  return op != ir::OpKind::Input && op != ir::OpKind::Weight && op != ir::OpKind::Constant &&
         op != ir::OpKind::Noop && op != ir::OpKind::Opaque;
}

std::vector<double> OnnxruntimeOpTimer::time_ms(const std::vector<cost::OwnedOpConfig>& configs) {
  if (configs.empty()) return {};
  // The one-operator models travel as bytes after the request: no files.
  std::vector<std::string> models;
  models.reserve(configs.size());
  for (const cost::OwnedOpConfig& config : configs) {
    const ir::Graph graph = cost::one_node_graph(config);
    models.push_back(
        export_onnx(graph, make_export_source(graph, random_weight_data(graph, options_.seed))));
  }
  ModelReferences references;
  nlohmann::json refs = nlohmann::json::array();
  for (const std::string& model : models)
    refs.push_back(references.add(ModelSource::in_memory(model)));
  const nlohmann::json answer = helper_->ask({{"models", refs},
                                              {"threads", options_.threads},
                                              {"warmup", options_.warmup},
                                              {"repeats", options_.repeats},
                                              {"min_run_ms", options_.min_run_ms}},
                                             "onnxruntime timer", references.attachments());
  std::vector<double> times = answer.at("times_ms").get<std::vector<double>>();
  if (times.size() != configs.size()) {
    throw Error("onnxruntime timer answered " + std::to_string(times.size()) + " times for " +
                std::to_string(configs.size()) + " models");
  }
  return times;
}

}  // namespace saturate::onnx
