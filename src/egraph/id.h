#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

namespace saturate::egraph {

// Names an e-class. Ids are dense indices handed out by EGraph::add, so per-class data lives in
// flat vectors. After a merge only the canonical id (EGraph::find) names a live class; the other
// id still works as a name for it.
class EClassId {
 public:
  static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();

  constexpr EClassId() = default;
  constexpr explicit EClassId(std::uint32_t value) : value_(value) {}
  constexpr explicit EClassId(std::size_t value) : value_(static_cast<std::uint32_t>(value)) {}

  constexpr std::uint32_t value() const { return value_; }
  constexpr std::size_t index() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalid; }

  friend constexpr auto operator<=>(EClassId, EClassId) = default;

 private:
  std::uint32_t value_ = kInvalid;
};

inline std::ostream& operator<<(std::ostream& out, EClassId id) {
  return out << "e" << id.value();
}

}  // namespace saturate::egraph

template <>
struct std::hash<saturate::egraph::EClassId> {
  std::size_t operator()(saturate::egraph::EClassId id) const noexcept { return id.value(); }
};
