#pragma once

#include <cstdint>
#include <vector>

#include "ir/op_kind.h"
#include "pm/core.h"

namespace saturate::pm {

// For each definition and each of its alternates, the set of operators that can produce the
// value it matches at its root, so that the matcher and the rewriter skip hopeless attempts
// without walking a pattern. A variable or op-variable root, or a call of a definition with
// such a root, accepts any operator.
class RootIndex {
 public:
  using OpMask = uint64_t;
  static constexpr OpMask kAny = ~OpMask{0};
  static_assert(ir::kNumOpKinds <= 64, "an OpMask holds one bit per operator");

  explicit RootIndex(const Module& module);

  static OpMask bit(ir::OpKind op) { return OpMask{1} << static_cast<unsigned>(op); }

  OpMask definition_mask(uint32_t definition) const { return definitions_[definition]; }
  OpMask alternate_mask(uint32_t definition, uint32_t alternate) const {
    return alternates_[definition][alternate];
  }
  bool accepts(uint32_t definition, ir::OpKind op) const {
    return (definitions_[definition] & bit(op)) != 0;
  }

 private:
  OpMask pattern_mask(const Pattern& pattern) const;

  std::vector<OpMask> definitions_;
  std::vector<std::vector<OpMask>> alternates_;
};

}  // namespace saturate::pm
