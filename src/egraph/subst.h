#pragma once

#include <optional>
#include <string>

#include "egraph/id.h"
#include "egraph/small_vector.h"
#include "egraph/symbol.h"
#include "support/error.h"

namespace saturate::egraph {

struct Binding {
  Var var;
  EClassId eclass;
};

// A substitution: pattern variables bound to e-classes. Patterns have few variables, so a small
// inline array searched linearly beats any map.
class Subst {
 public:
  // Binds var, replacing an earlier binding.
  void insert(Var var, EClassId eclass) {
    for (Binding& binding : bindings_) {
      if (binding.var == var) {
        binding.eclass = eclass;
        return;
      }
    }
    bindings_.push_back(Binding{var, eclass});
  }
  // Binds a variable the substitution does not bind yet (unchecked: for building one binding
  // by binding in a known order).
  void append_new(Var var, EClassId eclass) { bindings_.push_back(Binding{var, eclass}); }
  std::optional<EClassId> get(Var var) const {
    for (const Binding& binding : bindings_) {
      if (binding.var == var) return binding.eclass;
    }
    return std::nullopt;
  }
  // Throws saturate::Error naming the variable when it is unbound.
  EClassId at(Var var) const {
    if (std::optional<EClassId> eclass = get(var)) return *eclass;
    throw Error("pattern variable '" + std::string(var.name()) + "' is not bound");
  }
  EClassId operator[](Var var) const { return at(var); }
  EClassId operator[](std::string_view name) const { return at(Var(name)); }

  std::size_t size() const { return bindings_.size(); }
  bool empty() const { return bindings_.empty(); }
  const Binding* begin() const { return bindings_.begin(); }
  const Binding* end() const { return bindings_.end(); }
  const Binding& binding(std::size_t i) const { return bindings_[i]; }

  std::string to_string() const {
    std::string text = "{";
    for (const Binding& binding : bindings_) {
      if (text.size() > 1) text += ", ";
      text += std::string(binding.var.name()) + ": e" + std::to_string(binding.eclass.value());
    }
    return text + "}";
  }

  // Same variables bound to the same classes, in the same order.
  friend bool operator==(const Subst& a, const Subst& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a.bindings_[i].var != b.bindings_[i].var ||
          a.bindings_[i].eclass != b.bindings_[i].eclass)
        return false;
    }
    return true;
  }

 private:
  SmallVector<Binding, 4> bindings_;
};

}  // namespace saturate::egraph
