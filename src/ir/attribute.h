#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace saturate::ir {

// Fused activation codes; the first four are TENSAT's (0 none, 1 sigmoid, 2 relu, 3 tanh). The
// others take parameters (clip: min and max; leaky_relu: alpha; hard_sigmoid: alpha and beta),
// which only an operator declaring activation_alpha and activation_beta carries (fused_conv).
enum class Activation : int64_t {
  None = 0,
  Sigmoid = 1,
  Relu = 2,
  Tanh = 3,
  Clip = 4,
  LeakyRelu = 5,
  HardSigmoid = 6
};
inline constexpr Activation kActivations[] = {
    Activation::None, Activation::Sigmoid,   Activation::Relu,       Activation::Tanh,
    Activation::Clip, Activation::LeakyRelu, Activation::HardSigmoid};

// Whether the activation reads activation_alpha / activation_beta.
bool has_parameters(Activation activation);
// Padding codes; the numbers are TENSAT's (0 SAME, 1 VALID).
enum class Padding : int64_t { Same = 0, Valid = 1 };

std::string_view to_string(Activation activation);
std::string_view to_string(Padding padding);
std::optional<Activation> parse_activation(std::string_view text);
std::optional<Padding> parse_padding(std::string_view text);

// The declared type of an attribute. Enumerations are stored as integers (their codes) and
// written by name in the text form.
enum class AttrKind : uint8_t { Int, Ints, Float, String, Activation, Padding };
std::string_view to_string(AttrKind kind);

using AttrValue = std::variant<int64_t, std::vector<int64_t>, double, std::string>;

// Whether a value has the storage type an attribute kind uses.
bool holds_kind(const AttrValue& value, AttrKind kind);

// An operator's attributes, kept sorted by name so that equal attribute sets compare and hash
// equal (attributes are part of a node's identity in the e-graph).
class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<std::string, AttrValue>> entries);

  void set(const std::string& name, AttrValue value);
  bool has(std::string_view name) const;
  const AttrValue* find(std::string_view name) const;

  // Typed accessors: throw saturate::Error when missing or of another type.
  int64_t get_int(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;
  double get_float(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  Activation get_activation(std::string_view name = "activation") const;
  Padding get_padding(std::string_view name = "padding") const;

  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t hash() const;
  bool operator==(const Attributes&) const = default;

 private:
  std::vector<std::pair<std::string, AttrValue>> entries_;
};

}  // namespace saturate::ir
