#pragma once

// The arithmetic language of egg's math tests, defined the way a user of the egraph part
// defines any language: a label type (operator plus payload) and an analysis.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "egraph/analysis.h"
#include "egraph/egraph.h"
#include "egraph/enode.h"
#include "egraph/symbol.h"
#include "support/hash.h"
#include "support/strings.h"

namespace saturate::egraph::testing {

struct MathOp {
  enum class Kind : std::uint8_t { Num, Symbol, Add, Sub, Mul, Div, Shl };

  Kind kind = Kind::Num;
  std::int64_t value = 0;  // Num: the number; Symbol: the interned name's id

  static MathOp num(std::int64_t n) { return {Kind::Num, n}; }
  static MathOp symbol(std::string_view name) { return {Kind::Symbol, Symbol(name).id()}; }

  friend auto operator<=>(const MathOp&, const MathOp&) = default;

  std::size_t hash() const {
    std::size_t seed = static_cast<std::size_t>(kind);
    hash_combine(seed, value);
    return seed;
  }
  std::uint32_t index() const { return static_cast<std::uint32_t>(kind); }
  std::string to_string() const {
    switch (kind) {
      case Kind::Num:
        return std::to_string(value);
      case Kind::Symbol:
        return Symbol::from_id(static_cast<std::uint32_t>(value)).to_string();
      case Kind::Add:
        return "+";
      case Kind::Sub:
        return "-";
      case Kind::Mul:
        return "*";
      case Kind::Div:
        return "/";
      case Kind::Shl:
        return "<<";
    }
    return "?";
  }
  static std::optional<MathOp> parse(std::string_view text, std::size_t arity) {
    if (arity == 2) {
      if (text == "+") return MathOp{Kind::Add, 0};
      if (text == "-") return MathOp{Kind::Sub, 0};
      if (text == "*") return MathOp{Kind::Mul, 0};
      if (text == "/") return MathOp{Kind::Div, 0};
      if (text == "<<") return MathOp{Kind::Shl, 0};
      return std::nullopt;
    }
    if (arity != 0) return std::nullopt;
    if (std::optional<std::int64_t> n = parse_int(text)) return num(*n);
    return symbol(text);
  }
};

static_assert(Operator<MathOp>);

// Folds constants: a class's data is its value when every node's children have one. modify()
// adds the number to the class, so rewrites see (+ 1 2) as 3.
struct ConstantFolding {
  using Data = std::optional<std::int64_t>;

  template <typename Graph>
  Data make(const Graph& egraph, const ENode<MathOp>& node) const {
    if (node.op.kind == MathOp::Kind::Num) return node.op.value;
    if (node.is_leaf()) return std::nullopt;
    Data a = egraph.data(node.children[0]);
    Data b = egraph.data(node.children[1]);
    if (!a || !b) return std::nullopt;
    switch (node.op.kind) {
      case MathOp::Kind::Add:
        return *a + *b;
      case MathOp::Kind::Sub:
        return *a - *b;
      case MathOp::Kind::Mul:
        return *a * *b;
      case MathOp::Kind::Div:
        if (*b == 0 || *a % *b != 0) return std::nullopt;
        return *a / *b;
      case MathOp::Kind::Shl:
        if (*b < 0 || *b > 32) return std::nullopt;
        return *a << *b;
      default:
        return std::nullopt;
    }
  }

  DidMerge merge(Data& into, Data from) { return merge_optional(into, from); }

  template <typename Graph>
  void modify(Graph& egraph, EClassId id) {
    if (Data value = egraph.data(id)) {
      EClassId constant = egraph.add(ENode<MathOp>(MathOp::num(*value)));
      egraph.merge(id, constant);
    }
  }
};

using MathGraph = EGraph<MathOp, ConstantFolding>;

}  // namespace saturate::egraph::testing
