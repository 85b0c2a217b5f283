#include "ir/attribute.h"

#include <algorithm>

#include "support/error.h"
#include "support/hash.h"

namespace saturate::ir {

std::string_view to_string(Activation activation) {
  switch (activation) {
    case Activation::None:
      return "none";
    case Activation::Sigmoid:
      return "sigmoid";
    case Activation::Relu:
      return "relu";
    case Activation::Tanh:
      return "tanh";
    case Activation::Clip:
      return "clip";
    case Activation::LeakyRelu:
      return "leaky_relu";
    case Activation::HardSigmoid:
      return "hard_sigmoid";
  }
  return "?";
}

bool has_parameters(Activation activation) {
  return activation == Activation::Clip || activation == Activation::LeakyRelu ||
         activation == Activation::HardSigmoid;
}

std::string_view to_string(Padding padding) {
  switch (padding) {
    case Padding::Same:
      return "same";
    case Padding::Valid:
      return "valid";
  }
  return "?";
}

std::optional<Activation> parse_activation(std::string_view text) {
  for (auto a : kActivations) {
    if (text == to_string(a)) return a;
  }
  return std::nullopt;
}

std::optional<Padding> parse_padding(std::string_view text) {
  if (text == "same") return Padding::Same;
  if (text == "valid") return Padding::Valid;
  return std::nullopt;
}

std::string_view to_string(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
      return "int";
    case AttrKind::Ints:
      return "int list";
    case AttrKind::Float:
      return "float";
    case AttrKind::String:
      return "string";
    case AttrKind::Activation:
      return "activation (none|sigmoid|relu|tanh|clip|leaky_relu|hard_sigmoid)";
    case AttrKind::Padding:
      return "padding (same|valid)";
  }
  return "?";
}

bool holds_kind(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::Int:
    case AttrKind::Activation:
    case AttrKind::Padding:
      return std::holds_alternative<int64_t>(value);
    case AttrKind::Ints:
      return std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::Float:
      return std::holds_alternative<double>(value);
    case AttrKind::String:
      return std::holds_alternative<std::string>(value);
  }
  return false;
}

Attributes::Attributes(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  for (const auto& [name, value] : entries) set(name, value);
}

void Attributes::set(const std::string& name, AttrValue value) {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), name,
                       [](const auto& entry, const std::string& key) { return entry.first < key; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, {name, std::move(value)});
  }
}

const AttrValue* Attributes::find(std::string_view name) const {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), name,
                       [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it != entries_.end() && it->first == name) return &it->second;
  return nullptr;
}

bool Attributes::has(std::string_view name) const {
  return find(name) != nullptr;
}

namespace {
template <typename T>
const T& get_typed(const Attributes& attrs, std::string_view name, std::string_view type_name) {
  const AttrValue* value = attrs.find(name);
  if (value == nullptr) throw Error("missing attribute '" + std::string(name) + "'");
  const T* typed = std::get_if<T>(value);
  if (typed == nullptr) {
    throw Error("attribute '" + std::string(name) + "' is not " + std::string(type_name));
  }
  return *typed;
}
}  // namespace

int64_t Attributes::get_int(std::string_view name) const {
  return get_typed<int64_t>(*this, name, "an int");
}
const std::vector<int64_t>& Attributes::get_ints(std::string_view name) const {
  return get_typed<std::vector<int64_t>>(*this, name, "an int list");
}
double Attributes::get_float(std::string_view name) const {
  return get_typed<double>(*this, name, "a float");
}
const std::string& Attributes::get_string(std::string_view name) const {
  return get_typed<std::string>(*this, name, "a string");
}
Activation Attributes::get_activation(std::string_view name) const {
  int64_t code = get_int(name);
  if (code < 0 || code > 6) throw Error("activation code " + std::to_string(code) + " is not 0..6");
  return static_cast<Activation>(code);
}
Padding Attributes::get_padding(std::string_view name) const {
  int64_t code = get_int(name);
  if (code < 0 || code > 1) throw Error("padding code " + std::to_string(code) + " is not 0..1");
  return static_cast<Padding>(code);
}

std::size_t Attributes::hash() const {
  std::size_t seed = entries_.size();
  for (const auto& [name, value] : entries_) {
    hash_combine(seed, name);
    hash_combine(seed, value.index());
    std::visit(
        [&seed](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            for (int64_t x : v) hash_combine(seed, x);
          } else {
            hash_combine(seed, v);
          }
        },
        value);
  }
  return seed;
}

}  // namespace saturate::ir
