#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "ir/attribute.h"
#include "ir/graph.h"
#include "ir/op_kind.h"

namespace saturate::pm {

// What an op variable binds to: an operator kind together with a node's attributes.
struct OpSymbol {
  ir::OpKind kind = ir::OpKind::Input;
  ir::Attributes attrs;
  bool operator==(const OpSymbol&) const = default;
};

// A successful match of a definition at a value: the bindings of its parameters (locals are
// invisible outside). Two matches are equal when their bindings are, whichever alternate
// produced them.
template <class Value>
struct BasicMatch {
  using Binding = std::variant<Value, OpSymbol>;

  uint32_t definition = 0;
  uint32_t alternate = 0;  // which alternate of the definition matched (0-based)
  std::vector<Binding> params;

  const Value& value(size_t param) const { return std::get<Value>(params.at(param)); }
  const OpSymbol& symbol(size_t param) const { return std::get<OpSymbol>(params.at(param)); }
  bool operator==(const BasicMatch& other) const { return params == other.params; }
};

using Match = BasicMatch<ir::ValueRef>;

}  // namespace saturate::pm
