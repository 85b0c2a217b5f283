#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace saturate::models {

struct ModelOptions {
  // Reduced size: the same operators and structure (same op counts) with small spatial sizes,
  // channel counts and hidden sizes, so the reference interpreter runs it in well under a
  // second. Used by tests.
  bool reduced = false;
  // Repeated blocks, for models built from a repeated layer (transformer_decomposed); 0 means
  // the model's own default. Used to build large graphs for matching benchmarks.
  int layers = 0;
};

struct ModelInfo {
  std::string name;         // CLI name, e.g. "resnext50"
  std::string description;  // one line
  int reference_ops = 0;    // op count stated in docs (FACTS.md), 0 where none is stated
  std::function<ir::Graph(const ModelOptions&)> build;
  // False where random inputs cannot stay finite: TASO's BERT has no softmax or normalization,
  // so each layer cubes magnitudes and any input scale overflows or underflows to zero.
  bool finite_on_random_inputs = true;
};

// Prints the model's name (GoogleTest uses it to show parameterized test values).
inline void PrintTo(const ModelInfo& model, std::ostream* out) {
  *out << model.name;
}

// The bundled benchmark models, in a stable order: the 7 paper models, ResNet-50, MobileNetV2,
// the transformer encoder block.
const std::vector<ModelInfo>& all_models();
// nullptr when no model has that name.
const ModelInfo* find_model(std::string_view name);

ir::Graph build_bert(const ModelOptions& options);
ir::Graph build_nasrnn(const ModelOptions& options);
ir::Graph build_nasnet_a(const ModelOptions& options);
ir::Graph build_resnext50(const ModelOptions& options);
ir::Graph build_inception_v3(const ModelOptions& options);
ir::Graph build_squeezenet(const ModelOptions& options);
ir::Graph build_vgg19(const ModelOptions& options);
ir::Graph build_resnet50(const ModelOptions& options);
ir::Graph build_mobilenet_v2(const ModelOptions& options);
ir::Graph build_transformer(const ModelOptions& options);
ir::Graph build_transformer_decomposed(const ModelOptions& options);

}  // namespace saturate::models
