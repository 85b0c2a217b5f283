#include "egraph/symbol.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "support/error.h"

namespace saturate::egraph {
namespace {

// Strings live in a deque so the views handed out (and used as map keys) never move.
class SymbolTable {
 public:
  std::uint32_t intern(std::string_view name) {
    std::lock_guard lock(mutex_);
    auto found = ids_.find(name);
    if (found != ids_.end()) return found->second;
    auto id = static_cast<std::uint32_t>(names_.size());
    const std::string& stored = names_.emplace_back(name);
    ids_.emplace(stored, id);
    return id;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return names_.size();
  }
  std::string_view name(std::uint32_t id) {
    std::lock_guard lock(mutex_);
    return names_[id];
  }

 private:
  std::mutex mutex_;
  std::deque<std::string> names_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
};

SymbolTable& table() {
  static SymbolTable instance;
  return instance;
}

}  // namespace

Symbol::Symbol(std::string_view name) : id_(table().intern(name)) {}

Symbol Symbol::from_id(std::uint32_t id) {
  if (id >= table().size()) throw Error("no symbol has id " + std::to_string(id));
  return Symbol(FromId{}, id);
}

std::string_view Symbol::name() const {
  return table().name(id_);
}

std::optional<Symbol> Symbol::parse(std::string_view text, std::size_t /*arity*/) {
  return Symbol(text);
}

bool is_variable_name(std::string_view text) {
  return text.size() >= 2 && text[0] == '?';
}

Var::Var(std::string_view name) : symbol_(name) {
  if (!is_variable_name(name)) {
    throw Error("pattern variable '" + std::string(name) +
                "' must start with '?' followed by a name, as in '?x'");
  }
}

}  // namespace saturate::egraph
