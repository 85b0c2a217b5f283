#include "onnx/onnxruntime_op_timer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cost/one_node_graph.h"
#include "onnx/onnx_export.h"
#include "onnx/random_weights.h"
#include "support/child_process.h"
#include "support/deadline.h"
#include "support/error.h"
#include "support/json_helper_client.h"
#include "support/python_helper.h"

namespace saturate::onnx {
namespace {

// Random position tables that repeat their halves, as real ones do: export writes ONNX Runtime's
// RotaryEmbedding only for such tables, and the kernel is what is timed.
void repeat_rotary_table_halves(const ir::Graph& graph,
                                std::map<std::string, std::vector<float>>& weights) {
  for (const ir::Node& node : graph.nodes()) {
    if (node.op != ir::OpKind::RotaryEmbedding) continue;
    for (size_t k = 1; k < node.inputs.size(); ++k) {
      const ir::Node& table = graph.node(node.inputs[k].node);
      auto it = weights.find(table.name());
      if (table.op != ir::OpKind::Weight || it == weights.end()) continue;
      const auto half = static_cast<size_t>(table.outputs[0].dims.back() / 2);
      std::vector<float>& data = it->second;
      for (size_t row = 0; row + 2 * half <= data.size(); row += 2 * half) {
        std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(row), half,
                    data.begin() + static_cast<std::ptrdiff_t>(row + half));
      }
    }
  }
}

}  // namespace

OnnxruntimeOpTimer::OnnxruntimeOpTimer(OnnxruntimeTimerOptions options)
    : options_(std::move(options)) {
  try {
    helper_ = options_.helper != nullptr
                  ? options_.helper
                  : std::make_shared<OnnxruntimeHelper>(options_.python, options_.python_dir);
    fingerprint_ = helper_->ask({{"fingerprint", true}, {"threads", options_.threads}},
                                "onnxruntime timer")["fingerprint"];
  } catch (const DeadlinePassed&) {
    throw;  // not a missing onnxruntime: the caller keeps the original
  } catch (const Error& error) {
    throw Error(std::string("--cost onnxruntime needs Python with onnxruntime: ") + error.what());
  }
}

OnnxruntimeOpTimer::~OnnxruntimeOpTimer() {
  helper_.reset();  // the last owner closes its input: the helper exits
}

bool OnnxruntimeOpTimer::supports(const cost::OpConfig& config) const {
  const ir::OpKind op = config.op;
  // ONNX Runtime's CPU provider has almost no bfloat16 kernels (not MatMul, not Add): such a
  // configuration is priced by the fallback model.
  const auto bfloat16 = [](const ir::TensorType& type) { return type.dtype == ir::DType::BF16; };
  if (std::any_of(config.inputs.begin(), config.inputs.end(), bfloat16) ||
      std::any_of(config.outputs.begin(), config.outputs.end(), bfloat16)) {
    return false;
  }
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
    auto weights = random_weight_data(graph, options_.seed);
    repeat_rotary_table_halves(graph, weights);
    models.push_back(export_onnx(graph, make_export_source(graph, std::move(weights))));
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
