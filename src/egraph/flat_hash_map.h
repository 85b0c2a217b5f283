#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "support/hash.h"

namespace saturate::egraph {

// An insert-only open-addressing hash map, used for the hash-cons (memo) of canonical e-nodes.
// Entries sit densely in insertion order; the probe table holds 64-bit slots (32 hash bits and the
// entry index), so a probe touches one cache line and rehashing never rehashes keys. There is no
// erase: the e-graph rebuilds the whole map when stale keys pile up, which is cheaper than
// tombstones in the hot lookup path.
template <typename Key, typename Value, typename Hash, typename Equal = std::equal_to<Key>>
class FlatHashMap {
 public:
  struct Entry {
    std::uint64_t hash;
    Key key;
    Value value;
  };

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }

  const Value* find(const Key& key) const {
    if (entries_.empty()) return nullptr;
    std::uint64_t hash = mix(Hash{}(key));
    for (std::size_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
      std::uint64_t word = table_[slot];
      if (word == 0) return nullptr;
      if ((word >> 32) == (hash >> 32)) {
        const Entry& entry = entries_[(word & 0xffffffffu) - 1];
        if (Equal{}(entry.key, key)) return &entry.value;
      }
    }
  }

  // Inserts the pair unless the key is present; then returns the value already stored. The key
  // is copied only when it is inserted.
  std::optional<Value> try_insert(const Key& key, Value value) {
    if ((entries_.size() + 1) * 4 > table_.size() * 3) grow();
    std::uint64_t hash = mix(Hash{}(key));
    std::size_t slot = hash & mask_;
    for (;; slot = (slot + 1) & mask_) {
      std::uint64_t word = table_[slot];
      if (word == 0) break;
      if ((word >> 32) == (hash >> 32)) {
        const Entry& entry = entries_[(word & 0xffffffffu) - 1];
        if (Equal{}(entry.key, key)) return entry.value;
      }
    }
    entries_.push_back(Entry{hash, key, std::move(value)});
    table_[slot] = make_word(hash, entries_.size());
    return std::nullopt;
  }

  void clear() {
    entries_.clear();
    table_.assign(table_.size(), 0);
  }
  void reserve(std::size_t count) {
    entries_.reserve(count);
    while (count * 4 > table_.size() * 3) grow();
  }

 private:
  // std::hash of integers is the identity; the low bits pick the slot, so spread them first.
  static std::uint64_t mix(std::uint64_t h) { return mix64(h); }
  static std::uint64_t make_word(std::uint64_t hash, std::size_t index_plus_one) {
    return (hash & 0xffffffff00000000ULL) | static_cast<std::uint64_t>(index_plus_one);
  }
  void grow() {
    std::size_t capacity = table_.empty() ? 16 : table_.size() * 2;
    table_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      std::size_t slot = entries_[i].hash & mask_;
      while (table_[slot] != 0) slot = (slot + 1) & mask_;
      table_[slot] = make_word(entries_[i].hash, i + 1);
    }
  }

  std::vector<Entry> entries_;
  std::vector<std::uint64_t> table_;  // 0 = empty slot
  std::size_t mask_ = 0;
};

}  // namespace saturate::egraph
