#include "onnx/input_shapes.h"

#include <set>

#include "onnx/onnx_import.h"
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
}

void require_static_inputs(const ::onnx::ModelProto& model, const std::string& source) {
  std::set<std::string> initializers = initializer_names(model);
  std::string dynamic;
  std::string example;
  for (const auto& info : model.graph().input()) {
    if (initializers.contains(info.name()) || !info.type().has_tensor_type()) continue;
    const auto& tensor = info.type().tensor_type();
    if (!tensor.has_shape()) {
      dynamic += (dynamic.empty() ? "" : ", ") + info.name() + " (rank unknown)";
      continue;
    }
    std::string dims;
    bool any = false;
    for (int k = 0; k < tensor.shape().dim_size(); ++k) {
      const auto& dim = tensor.shape().dim(k);
      bool known = dim.has_dim_value() && dim.dim_value() > 0;
      any = any || !known;
      dims += (k == 0 ? "" : ",") +
              (known ? std::to_string(dim.dim_value())
                     : (dim.has_dim_param() && !dim.dim_param().empty() ? dim.dim_param() : "?"));
    }
    if (any) {
      dynamic += (dynamic.empty() ? "" : ", ") + info.name() + "[" + dims + "]";
      if (example.empty()) example = info.name() + "=" + dims;
    }
  }
  if (dynamic.empty()) return;
  throw Error(source + ": dynamic input dimensions: " + dynamic +
              "; pin each with --input-shape NAME=D1,D2,... (e.g. --input-shape " +
              (example.empty() ? "NAME=1,128" : example) +
              " with numbers for the named dimensions)");
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
