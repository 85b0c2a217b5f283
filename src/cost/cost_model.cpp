#include "cost/cost_model.h"

#include <variant>

#include "ir/op_registry.h"
#include "support/strings.h"

namespace saturate::cost {

namespace {

std::string attribute_text(const ir::AttrValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return ir::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return format_double(v);
        } else {
          return "\"" + v + "\"";
        }
      },
      value);
}

}  // namespace

std::string describe(const OpConfig& config) {
  std::string text(ir::to_string(config.op));
  text += "(" + join(config.inputs, ", ", [](const ir::TensorType& t) { return ir::to_string(t); }) +
          ")";
  // Attributes are kept sorted by name, so the text is canonical. Output types are implied by
  // the rest and left out.
  for (const auto& [name, value] : config.attrs.entries()) {
    text += " " + name + "=" + attribute_text(value);
  }
  return text;
}

}  // namespace saturate::cost
