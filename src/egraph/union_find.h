#pragma once

#include <cstdint>
#include <vector>

#include "egraph/id.h"

namespace saturate::egraph {

// Disjoint sets over dense ids. The e-graph decides which root survives a union (it keeps the
// class with more parents), so link() takes the roots explicitly instead of ranking by size.
class UnionFind {
 public:
  EClassId make_set() {
    EClassId id(parents_.size());
    parents_.push_back(id.value());
    return id;
  }

  std::size_t size() const { return parents_.size(); }
  bool is_root(EClassId id) const { return parents_[id.index()] == id.value(); }

  // Without path compression, so a const e-graph (e-matching, extraction) can call it. After a
  // rebuild every id stored in the e-graph is canonical and this is one step.
  EClassId find(EClassId id) const {
    std::uint32_t current = id.value();
    while (parents_[current] != current) current = parents_[current];
    return EClassId(current);
  }

  // Path halving: every other node on the path is pointed at its grandparent.
  EClassId find_compress(EClassId id) {
    std::uint32_t current = id.value();
    while (parents_[current] != current) {
      std::uint32_t grandparent = parents_[parents_[current]];
      parents_[current] = grandparent;
      current = grandparent;
    }
    return EClassId(current);
  }

  // Both ids must be roots; afterwards `root` is the root of the joined set.
  EClassId link(EClassId root, EClassId child) {
    parents_[child.index()] = root.value();
    return root;
  }

 private:
  std::vector<std::uint32_t> parents_;
};

}  // namespace saturate::egraph
