#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace saturate::egraph {

// An interned string: equal names get equal ids, so comparing and hashing symbols is one integer
// operation. The table is process-wide and never shrinks (like egg's global symbol table).
//
// Symbol is also a complete operator type: EGraph<Symbol> is egg's SymbolLang, where every
// operator is just a name ("+", "x", "3") applied to any number of children. It is the quickest
// way to try something; languages with payloads (numbers, attributes) define their own operator.
//
//   EGraph<Symbol> egraph;
//   EClassId x = egraph.add_term(Term<Symbol>::parse("(f x)"));
class Symbol {
 public:
  Symbol() : Symbol(std::string_view{}) {}
  explicit Symbol(std::string_view name);
  // The symbol with this id; throws saturate::Error if no symbol has it yet.
  static Symbol from_id(std::uint32_t id);

  std::uint32_t id() const { return id_; }
  // Stable for the life of the process.
  std::string_view name() const;

  // Ordered by id (first interned first), not alphabetically: fast and deterministic within a run.
  friend auto operator<=>(Symbol, Symbol) = default;

  // Operator interface (see enode.h).
  std::size_t hash() const { return id_; }
  std::uint32_t index() const { return id_; }
  std::string to_string() const { return std::string(name()); }
  static std::optional<Symbol> parse(std::string_view text, std::size_t arity);

 private:
  struct FromId {};
  Symbol(FromId, std::uint32_t id) : id_(id) {}

  std::uint32_t id_;
};

// A pattern variable such as "?x". Interned like Symbol so substitutions compare integers.
class Var {
 public:
  // Throws saturate::Error unless the name starts with '?' and has at least one more character.
  explicit Var(std::string_view name);

  std::string_view name() const { return symbol_.name(); }
  std::uint32_t id() const { return symbol_.id(); }
  friend auto operator<=>(Var, Var) = default;

 private:
  Symbol symbol_;
};

bool is_variable_name(std::string_view text);

}  // namespace saturate::egraph

template <>
struct std::hash<saturate::egraph::Symbol> {
  std::size_t operator()(saturate::egraph::Symbol symbol) const noexcept { return symbol.id(); }
};
template <>
struct std::hash<saturate::egraph::Var> {
  std::size_t operator()(saturate::egraph::Var var) const noexcept { return var.id(); }
};
