#include "cost/cost_model.h"

#include <variant>

#include "ir/attribute_text.h"
#include "ir/op_registry.h"
#include "ir/symbolic_dim.h"
#include "support/error.h"
#include "support/strings.h"

namespace saturate::cost {

bool has_symbolic_shape(const OpConfig& config) {
  for (const auto* types : {&config.inputs, &config.outputs}) {
    for (const ir::TensorType& type : *types) {
      if (ir::has_symbolic(type.dims)) return true;
    }
  }
  for (const auto& [name, value] : config.attrs.entries()) {
    if (const auto* number = std::get_if<int64_t>(&value); number && ir::is_symbolic(*number)) {
      return true;
    }
    if (const auto* numbers = std::get_if<std::vector<int64_t>>(&value);
        numbers && ir::has_symbolic(*numbers)) {
      return true;
    }
  }
  return false;
}

void require_concrete_shapes(const OpConfig& config, std::string_view model) {
  if (!has_symbolic_shape(config)) return;
  throw Error("cost model given a symbolic shape: " + std::string(model) + " cannot price " +
              describe(config) +
              " until its symbols are bound (price it at concrete sizes through a "
              "ProfiledCostModel, e.g. --profile batch=1,sequence=128)");
}

std::string describe(const OpConfig& config) {
  const ir::OpInfo& info = ir::op_info(config.op);
  std::string text =
      info.name + "(" +
      join(config.inputs, ", ", [](const ir::TensorType& type) { return ir::to_string(type); }) +
      ")";
  // Attributes are kept sorted by name, so the text is canonical; values are written as in the
  // text form (enumerations by name). Output types follow from the rest and are left out.
  for (const auto& [name, value] : config.attrs.entries()) {
    const ir::AttrSpec* spec = info.find_attribute(name);
    text += " " + name + "=";
    // A hand-built configuration may carry an attribute the operator does not declare.
    text += spec != nullptr && ir::holds_kind(value, spec->kind)
                ? ir::write_attribute(value, spec->kind)
                : "?";
  }
  return text;
}

}  // namespace saturate::cost
