#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "egraph/enode.h"
#include "egraph/flat_hash_map.h"
#include "egraph/huge_page_allocator.h"
#include "egraph/id.h"
#include "support/hash.h"

namespace saturate::egraph {

// The e-graph's hash-cons: canonical e-node -> the id it was added under. Insert-only (the
// e-graph clears and refills it when stale keys pile up).
//
// Looking nodes up is most of what applying rewrites costs, and a lookup in a map of full
// e-nodes is two cache misses (probe slot, then the stored node). Nodes with at most two
// children, nearly all of them in practice, are kept instead as 16-byte slots {label, child,
// child, id} probed in place, one miss; their label (operator and arity) is interned in a small
// map that stays in cache. Wider nodes go to a FlatHashMap of full nodes.
template <Operator Op>
class HashCons {
 public:
  // Stores node -> id unless an equal node is present; then returns the id stored for it.
  std::optional<EClassId> try_insert(const ENode<Op>& node, EClassId id) {
    if (node.arity() > 2) return wide_.try_insert(node, id);
    std::uint32_t label = intern(node);
    Slot key = make_slot(label, node, id);
    if ((narrow_count_ + 1) * 5 > slots_.size() * 3) grow();
    std::size_t slot = slot_hash(key) & mask_;
    for (;; slot = (slot + 1) & mask_) {
      Slot& here = slots_[slot];
      if (here.label == kEmpty) break;
      if (same_key(here, key)) return EClassId(here.id);
    }
    slots_[slot] = key;
    ++narrow_count_;
    return std::nullopt;
  }

  std::optional<EClassId> find(const ENode<Op>& node) const {
    if (node.arity() > 2) {
      if (const EClassId* id = wide_.find(node)) return *id;
      return std::nullopt;
    }
    const std::uint32_t* label = labels_.find(Label{node.op, node.arity()});
    if (!label || slots_.empty()) return std::nullopt;
    Slot key = make_slot(*label, node, EClassId());
    for (std::size_t slot = slot_hash(key) & mask_;; slot = (slot + 1) & mask_) {
      const Slot& here = slots_[slot];
      if (here.label == kEmpty) return std::nullopt;
      if (same_key(here, key)) return EClassId(here.id);
    }
  }

  // Entries, stale ones included.
  std::size_t size() const { return narrow_count_ + wide_.size(); }

  // Drops every entry (labels stay interned).
  void clear() {
    for (Slot& slot : slots_) slot = Slot{};
    narrow_count_ = 0;
    wide_.clear();
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xffffffffu;
  static constexpr std::uint32_t kNoChild = 0xffffffffu;

  struct Label {
    Op op;
    std::size_t arity;
    friend bool operator==(const Label&, const Label&) = default;
  };
  struct LabelHash {
    std::size_t operator()(const Label& label) const {
      std::size_t seed = label.op.hash();
      hash_combine(seed, label.arity);
      return seed;
    }
  };
  struct Slot {
    std::uint32_t label = kEmpty;  // interned operator and arity
    std::uint32_t first = kNoChild;
    std::uint32_t second = kNoChild;
    std::uint32_t id = 0;
  };

  std::uint32_t intern(const ENode<Op>& node) {
    auto next = static_cast<std::uint32_t>(labels_.size());
    if (std::optional<std::uint32_t> known = labels_.try_insert(Label{node.op, node.arity()}, next))
      return *known;
    return next;
  }

  static Slot make_slot(std::uint32_t label, const ENode<Op>& node, EClassId id) {
    Slot slot;
    slot.label = label;
    if (node.arity() > 0) slot.first = node.children[0].value();
    if (node.arity() > 1) slot.second = node.children[1].value();
    slot.id = id.value();
    return slot;
  }
  static bool same_key(const Slot& a, const Slot& b) {
    return a.label == b.label && a.first == b.first && a.second == b.second;
  }
  static std::uint64_t slot_hash(const Slot& slot) {
    std::uint64_t children = (static_cast<std::uint64_t>(slot.first) << 32) | slot.second;
    return mix64(children ^ mix64(slot.label));
  }

  void grow() {
    std::vector<Slot, HugePageAllocator<Slot>> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.label == kEmpty) continue;
      std::size_t at = slot_hash(slot) & mask_;
      while (slots_[at].label != kEmpty) at = (at + 1) & mask_;
      slots_[at] = slot;
    }
  }

  FlatHashMap<Label, std::uint32_t, LabelHash> labels_;
  std::vector<Slot, HugePageAllocator<Slot>>
      slots_;  // open addressing, linear probing; label kEmpty marks a free slot
  std::size_t mask_ = 0;
  std::size_t narrow_count_ = 0;
  FlatHashMap<ENode<Op>, EClassId, ENodeHash<Op>> wide_;
};

}  // namespace saturate::egraph
