#include "onnx/input_shapes.h"

#include <cctype>
#include <optional>
#include <set>

#include "ir/symbolic_dim.h"
#include "onnx/onnx_import.h"
#include "onnx/symbolic_folding.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::onnx {
namespace {

std::set<std::string> initializer_names(const ::onnx::ModelProto& model) {
  std::set<std::string> names;
  for (const auto& tensor : model.graph().initializer()) names.insert(tensor.name());
  return names;
}

}  // namespace

void pin_input_shapes(::onnx::ModelProto& model, const std::map<std::string, ir::Dims>& shapes,
                      const std::string& source) {
  std::set<std::string> initializers = initializer_names(model);
  std::set<std::string> pinned;
  std::map<std::string, int64_t> bound;  // dim_param -> the size a pin gives it
  for (auto& info : *model.mutable_graph()->mutable_input()) {
    auto it = shapes.find(info.name());
    if (it == shapes.end() || initializers.contains(info.name())) continue;
    const ir::Dims& dims = it->second;
    auto* tensor = info.mutable_type()->mutable_tensor_type();
    auto* shape = tensor->mutable_shape();
    if (shape->dim_size() != 0 && shape->dim_size() != static_cast<int>(dims.size())) {
      throw Error(source + ": --input-shape " + info.name() + " gives " +
                  std::to_string(dims.size()) + " dimensions, the model's input has " +
                  std::to_string(shape->dim_size()));
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      if (static_cast<int>(k) < shape->dim_size()) {
        const auto& dim = shape->dim(static_cast<int>(k));
        if (dim.has_dim_value() && dim.dim_value() > 0 && dim.dim_value() != dims[k]) {
          throw Error(source + ": --input-shape " + info.name() + " sets dimension " +
                      std::to_string(k) + " to " + std::to_string(dims[k]) +
                      ", but the model fixes it at " + std::to_string(dim.dim_value()));
        }
      }
    }
    for (size_t k = 0; k < dims.size() && static_cast<int>(k) < shape->dim_size(); ++k) {
      const auto& dim = shape->dim(static_cast<int>(k));
      if (!dim.has_dim_param() || dim.dim_param().empty()) continue;
      auto [entry, added] = bound.emplace(dim.dim_param(), dims[k]);
      if (!added && entry->second != dims[k]) {
        throw Error(source + ": --input-shape gives the dimension " + dim.dim_param() + " both " +
                    std::to_string(entry->second) + " and " + std::to_string(dims[k]) +
                    " (equal names are equal sizes)");
      }
    }
    shape->clear_dim();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
    pinned.insert(info.name());
  }
  for (const auto& [name, dims] : shapes) {
    if (!pinned.contains(name)) {
      std::string names;
      for (const auto& info : model.graph().input()) {
        if (!initializers.contains(info.name())) names += (names.empty() ? "" : ", ") + info.name();
      }
      throw Error(source + ": --input-shape names " + name +
                  ", which is not a graph input (the inputs are: " + names + ")");
    }
  }
  bind_dim_params(model, bound);
}

void bind_dim_params(::onnx::ModelProto& model, const std::map<std::string, int64_t>& sizes) {
  if (sizes.empty()) return;
  ir::SymbolBinding binding(sizes.begin(), sizes.end());
  // A dim the model names after a pinned one is that size wherever it appears (equal names are
  // equal sizes): exporters state intermediate types with the same names and expressions of
  // them (batch*sequence), and an unpinned input may share a name with a pinned one.
  auto bind = [&](::onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
    for (auto& dim : *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (!dim.has_dim_param() || dim.dim_param().empty()) continue;
      std::optional<int64_t> value;
      if (auto it = sizes.find(dim.dim_param()); it != sizes.end()) {
        value = it->second;
      } else if (auto parsed = ir::parse_dim(dim.dim_param())) {
        bool all_bound = true;
        for (ir::SymbolId id : ir::to_expr(*parsed).symbols()) {
          all_bound &= binding.contains(ir::symbol_name(id));
        }
        if (all_bound) value = ir::to_expr(*parsed).evaluate(binding);
      }
      if (value) dim.set_dim_value(*value);
    }
  };
  auto* graph = model.mutable_graph();
  for (auto& info : *graph->mutable_value_info()) bind(info);
  for (auto& info : *graph->mutable_output()) bind(info);
  for (auto& info : *graph->mutable_input()) bind(info);
}

void relate_dim_params(::onnx::ModelProto& model,
                       const std::map<std::string, std::string>& related) {
  if (related.empty()) return;
  auto relate = [&](::onnx::ValueInfoProto& info) {
    // mutable_shape() would give a value of unknown rank an empty shape: rank 0.
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
    for (auto& dim : *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (!dim.has_dim_param()) continue;
      if (auto it = related.find(dim.dim_param()); it != related.end()) {
        dim.set_dim_param(it->second);
      }
    }
  };
  auto* graph = model.mutable_graph();
  for (auto& info : *graph->mutable_input()) relate(info);
  for (auto& info : *graph->mutable_output()) relate(info);
  for (auto& info : *graph->mutable_value_info()) relate(info);
}

void name_dynamic_input_dims(::onnx::ModelProto& model) {
  std::set<std::string> initializers = initializer_names(model);
  for (auto& info : *model.mutable_graph()->mutable_input()) {
    if (initializers.contains(info.name()) || !info.type().has_tensor_type()) continue;
    auto* tensor = info.mutable_type()->mutable_tensor_type();
    if (!tensor->has_shape()) continue;
    for (int k = 0; k < tensor->shape().dim_size(); ++k) {
      auto* dim = tensor->mutable_shape()->mutable_dim(k);
      if (dim->has_dim_value() || (dim->has_dim_param() && !dim->dim_param().empty())) continue;
      std::string base = symbol_base(info.name()) + "_dim" + std::to_string(k);
      dim->set_dim_param(ir::symbol_name(ir::fresh_symbol(base)));
    }
  }
}

namespace {

// The identifiers of a dim_param: "past_sequence_length + sequence_length" -> both names.
std::vector<std::string> dim_param_names(const std::string& text) {
  std::vector<std::string> names;
  std::string current;
  for (char c : text) {
    const bool part = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    if (part) {
      current += c;
    } else if (!current.empty()) {
      names.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) names.push_back(std::move(current));
  return names;
}

}  // namespace

void forget_undeclared_dim_names(::onnx::ModelProto& model) {
  std::set<std::string> declared;
  auto collect = [&](const ::onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type()) return;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_param()) continue;
      for (std::string& name : dim_param_names(dim.dim_param())) declared.insert(std::move(name));
    }
  };
  auto* graph = model.mutable_graph();
  for (const auto& info : graph->input()) collect(info);
  for (const auto& info : graph->output()) collect(info);
  for (auto& info : *graph->mutable_value_info()) {
    // mutable_shape() would give a value of unknown rank an empty shape: rank 0.
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) continue;
    for (auto& dim : *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (!dim.has_dim_param()) continue;
      for (const std::string& name : dim_param_names(dim.dim_param())) {
        const bool number = std::isdigit(static_cast<unsigned char>(name.front())) != 0;
        if (!number && !declared.contains(name)) {
          dim.clear_dim_param();
          break;
        }
      }
    }
  }
}

std::pair<std::string, ir::Dims> parse_input_shape(const std::string& text) {
  size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size()) {
    throw Error("--input-shape '" + text + "' is not NAME=D1,D2,... (e.g. input_ids=1,128)");
  }
  std::string name = text.substr(0, eq);
  ir::Dims dims;
  std::string rest = text.substr(eq + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    size_t comma = rest.find(',', start);
    if (comma == std::string::npos) comma = rest.size();
    auto value = parse_int(std::string_view(rest).substr(start, comma - start));
    if (!value || *value <= 0) {
      throw Error("--input-shape '" + text + "': dimensions must be positive integers");
    }
    dims.push_back(*value);
    start = comma + 1;
  }
  return {name, dims};
}

}  // namespace saturate::onnx
