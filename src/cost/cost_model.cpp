#include "cost/cost_model.h"

#include "ir/attribute_text.h"
#include "ir/op_registry.h"
#include "support/strings.h"

namespace saturate::cost {

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
