// IR -> ONNX: rotary position embedding. ONNX Runtime's RotaryEmbedding holds one angle per pair
// of elements (cos and sin caches of shape (S, H/2)), where the rotate-half tables hold each
// angle twice; the kernel is written only where the tables are known here and really repeat
// their halves, and the formula otherwise, so the written model always computes the IR's value.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/weight_only.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_exporter.h"
#include "onnx/onnx_tensor_data.h"

namespace saturate::onnx {
namespace {

// The first half of every row of a (..., S, H) table, when each row repeats it exactly.
std::optional<std::vector<float>> repeated_half(const runtime::Tensor& table) {
  const int64_t head = table.dims.back();
  const int64_t half = head / 2;
  std::vector<float> cache;
  cache.reserve(static_cast<size_t>(table.num_elements() / 2));
  for (int64_t row = 0; row < table.num_elements() / head; ++row) {
    const double* values = table.data.data() + row * head;
    for (int64_t i = 0; i < half; ++i) {
      const auto first = static_cast<float>(values[i]);
      if (first != static_cast<float>(values[i + half])) return std::nullopt;
      cache.push_back(first);
    }
  }
  return cache;
}

}  // namespace

using ir::NodeId;
using ir::OpKind;
using ::onnx::NodeProto;

const std::optional<std::pair<std::vector<float>, std::vector<float>>>& Exporter::rotary_caches(
    NodeId id) {
  auto it = rotary_caches_.find(id);
  if (it != rotary_caches_.end()) return it->second;
  std::optional<std::pair<std::vector<float>, std::vector<float>>> caches;
  const ir::Node& node = graph_.node(id);
  ir::ValueRef cos = resolve(node.inputs[1]);
  ir::ValueRef sin = resolve(node.inputs[2]);
  if (known_[cos.node] && known_[sin.node]) {
    auto cos_half = repeated_half(value_of(cos));
    auto sin_half = repeated_half(value_of(sin));
    if (cos_half && sin_half) caches.emplace(std::move(*cos_half), std::move(*sin_half));
  }
  return rotary_caches_.emplace(id, std::move(caches)).first->second;
}

size_t Exporter::rotary_formulas() {
  known_ = ir::weight_only_nodes(graph_);
  size_t count = 0;
  for (NodeId id = 0; id < graph_.num_nodes(); ++id) {
    if (graph_.node(id).op == OpKind::RotaryEmbedding && !known_[id] && !rotary_caches(id)) ++count;
  }
  return count;
}

size_t rotary_embeddings_written_as_formula(const ir::Graph& graph, const OnnxModel& source) {
  return Exporter(graph, source).rotary_formulas();
}

void Exporter::emit_rotary_embedding(NodeId id) {
  const ir::Node& node = graph_.node(id);
  const std::string& y = names_[id][0];
  const ir::Dims& x = dims(node.inputs[0]);
  const int64_t positions = x[2];
  const int64_t head = x[3];
  const std::string input = name_of(node.inputs[0]);
  if (const auto& caches = rotary_caches(id)) {
    std::string cos = fresh(y + "_cos_cache");
    std::string sin = fresh(y + "_sin_cache");
    const ir::DType dtype = node.outputs[0].dtype;
    write_floats(*out_->add_initializer(), cos, {positions, head / 2}, caches->first, dtype);
    write_floats(*out_->add_initializer(), sin, {positions, head / 2}, caches->second, dtype);
    // One position id: the sequence starts at position 0 and reads cache rows 0..S-1.
    std::string start = ints_initializer({0}, y + "_position");
    NodeProto& rotary = add_node("RotaryEmbedding", {input, start, cos, sin}, {y});
    rotary.set_domain(std::string(kMicrosoftDomain));
    uses_microsoft_domain_ = true;
    return;
  }
  // x * cos + concat(-x[..., H/2:], x[..., :H/2]) * sin.
  std::string low = fresh(y + "_first_half");
  std::string high = fresh(y + "_second_half");
  std::string negated = fresh(y + "_neg");
  std::string rotated = fresh(y + "_rotated");
  std::string scaled = fresh(y + "_times_cos");
  std::string rotated_scaled = fresh(y + "_rotated_times_sin");
  emit_slice(input, 3, 0, head / 2, low);
  emit_slice(input, 3, head / 2, head, high);
  add_node("Neg", {high}, {negated});
  NodeProto& concat = add_node("Concat", {negated, low}, {rotated});
  add_attr(concat, "axis", int64_t{3});
  add_node("Mul", {input, name_of(node.inputs[1])}, {scaled});
  add_node("Mul", {rotated, name_of(node.inputs[2])}, {rotated_scaled});
  add_node("Add", {scaled, rotated_scaled}, {y});
}

}  // namespace saturate::onnx
