#include "cost/profiled_cost_model.h"

#include <cmath>
#include <limits>
#include <variant>

#include "support/error.h"
#include "support/strings.h"

namespace saturate::cost {
namespace {

std::string binding_text(const ir::SymbolBinding& sizes) {
  return join(sizes, ",",
              [](const auto& entry) { return entry.first + "=" + std::to_string(entry.second); });
}

void bind_attributes(const OpConfig& config, const ir::SymbolBinding& sizes, OwnedOpConfig& bound) {
  for (const auto& [name, value] : config.attrs.entries()) {
    if (const auto* number = std::get_if<int64_t>(&value); number && ir::is_symbolic(*number)) {
      bound.attrs.set(name, ir::evaluate_dim(*number, sizes));
    } else if (const auto* numbers = std::get_if<std::vector<int64_t>>(&value);
               numbers && ir::has_symbolic(*numbers)) {
      bound.attrs.set(name, ir::evaluate_dims(*numbers, sizes));
    }
  }
  // Slice's "to the end" bound is only valid on a symbolic axis; on the sized axis the binding
  // makes, the end is the size.
  const ir::AttrValue* end = bound.attrs.find("end");
  if (config.op == ir::OpKind::Slice && !config.inputs.empty() && end != nullptr &&
      *end == ir::AttrValue(std::numeric_limits<int64_t>::max()) && bound.attrs.has("axis")) {
    const ir::Dims& dims = config.inputs[0].dims;
    int64_t axis = bound.attrs.get_int("axis");
    if (axis < 0) axis += static_cast<int64_t>(dims.size());
    if (axis >= 0 && axis < static_cast<int64_t>(dims.size()) &&
        ir::is_symbolic(dims[static_cast<size_t>(axis)])) {
      bound.attrs.set("end", bound.inputs[0].dims[static_cast<size_t>(axis)]);
    }
  }
  // An opaque operator's output types are written in an attribute.
  if (config.op == ir::OpKind::Opaque && config.attrs.has("output_types")) {
    bound.attrs.set("output_types", join(bound.outputs, ";", [](const ir::TensorType& type) {
                      return ir::to_string(type);
                    }));
  }
}

}  // namespace

OwnedOpConfig bind_config(const OpConfig& config, const ir::SymbolBinding& sizes) {
  OwnedOpConfig bound = OwnedOpConfig::from(config);
  if (!has_symbolic_shape(config)) return bound;
  try {
    for (auto* types : {&bound.inputs, &bound.outputs}) {
      for (ir::TensorType& type : *types) type.dims = ir::evaluate_dims(type.dims, sizes);
    }
    bind_attributes(config, sizes, bound);
  } catch (const Error& error) {
    throw Error("cannot price " + describe(config) + " at " + binding_text(sizes) + ": " +
                error.what());
  }
  return bound;
}

ProfiledCostModel::ProfiledCostModel(std::unique_ptr<CostModel> inner,
                                     std::vector<WeightedBinding> profiles)
    : inner_(std::move(inner)), profiles_(std::move(profiles)) {
  if (inner_ == nullptr) throw Error("a profiled cost model needs a model to wrap");
  if (profiles_.empty()) {
    throw Error("a profiled cost model needs at least one binding of the symbols");
  }
  double total = 0;
  for (const WeightedBinding& profile : profiles_) {
    if (!std::isfinite(profile.weight) || !(profile.weight > 0)) {
      throw Error("the weight of profile " + binding_text(profile.sizes) + " is " +
                  format_double(profile.weight) + ": it must be a positive number");
    }
    total += profile.weight;
  }
  for (const WeightedBinding& profile : profiles_) shares_.push_back(profile.weight / total);
}

std::string ProfiledCostModel::name() const {
  return inner_->name() + " at " + std::to_string(profiles_.size()) +
         (profiles_.size() == 1 ? " profile" : " profiles");
}

double ProfiledCostModel::op_cost(const OpConfig& config) const {
  if (!has_symbolic_shape(config)) return inner_->op_cost(config);
  double cost = 0;
  for (size_t i = 0; i < profiles_.size(); ++i) {
    const OwnedOpConfig bound = bind_config(config, profiles_[i].sizes);
    cost += shares_[i] * inner_->op_cost(bound.view());
  }
  return cost;
}

void ProfiledCostModel::prepare(const std::vector<OwnedOpConfig>& configs) const {
  std::vector<OwnedOpConfig> concrete;
  concrete.reserve(configs.size());
  for (const OwnedOpConfig& config : configs) {
    const OpConfig view = config.view();
    if (!has_symbolic_shape(view)) {
      concrete.push_back(config);
      continue;
    }
    for (const WeightedBinding& profile : profiles_) {
      concrete.push_back(bind_config(view, profile.sizes));
    }
  }
  inner_->prepare(concrete);
}

const CostModel& unwrap_profiles(const CostModel& model) {
  const CostModel* current = &model;
  while (const auto* profiled = dynamic_cast<const ProfiledCostModel*>(current)) {
    current = &profiled->inner();
  }
  return *current;
}

}  // namespace saturate::cost
