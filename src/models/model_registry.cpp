#include "models/model_registry.h"

#include <algorithm>

namespace saturate::models {

const std::vector<ModelInfo>& all_models() {
  static const std::vector<ModelInfo> models = {
      {"bert", "BERT attention stack: relu then 8 attention layers on a (64, 1024) input", 113,
       build_bert, false},
      {"nasrnn", "NasRNN: 5 steps of the searched recurrent cell, hidden size 512", 230,
       build_nasrnn},
      {"nasnet_a", "NasNet-A: 3 x (5 normal cells + reduction cell), 224x224", 383, build_nasnet_a},
      {"resnext50", "ResNeXt-50 (32x4d style, 32 groups), 224x224, no classifier", 86,
       build_resnext50},
      {"inception_v3", "Inception-v3, 299x299, fused conv+relu, ends in global average pool", 130,
       build_inception_v3},
      {"squeezenet", "SqueezeNet 1.1, 224x224, 8 fire modules", 66, build_squeezenet},
      {"vgg19", "VGG-19, 224x224, 16 convs and 3 fully connected layers", 50, build_vgg19},
      {"resnet50", "ResNet-50 bottleneck stages from a (1, 64, 56, 56) input, no stem or head", 84,
       build_resnet50},
      {"mobilenet_v2", "MobileNetV2, 224x224, inverted residuals, relu6 as clip", 0,
       build_mobilenet_v2},
      {"transformer", "Transformer encoder block: sequence 128, dim 512, 8 heads, FFN 2048", 0,
       build_transformer},
      {"transformer_decomposed",
       "The transformer block as an exporter writes it: layer norm, GELU and attention unfused", 0,
       build_transformer_decomposed},
  };
  return models;
}

const ModelInfo* find_model(std::string_view name) {
  const auto& models = all_models();
  auto it = std::find_if(models.begin(), models.end(),
                         [&](const ModelInfo& model) { return model.name == name; });
  return it == models.end() ? nullptr : &*it;
}

}  // namespace saturate::models
