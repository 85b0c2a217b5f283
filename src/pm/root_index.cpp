#include "pm/root_index.h"

#include "pm/recursion_check.h"

namespace saturate::pm {

RootIndex::RootIndex(const Module& module)
    : definitions_(module.definitions.size(), 0), alternates_(module.definitions.size()) {
  for (size_t d = 0; d < module.definitions.size(); ++d) {
    alternates_[d].assign(module.definitions[d].alternates.size(), 0);
  }
  // Calls make the masks depend on each other (also recursively): grow them to a fixpoint.
  std::vector<uint32_t> order = callees_first(module);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t d : order) {
      const Definition& definition = module.definitions[d];
      OpMask all = 0;
      for (size_t a = 0; a < definition.alternates.size(); ++a) {
        OpMask mask = pattern_mask(definition.alternates[a].body);
        alternates_[d][a] = mask;
        all |= mask;
      }
      if (all != definitions_[d]) {
        definitions_[d] = all;
        changed = true;
      }
    }
  }
}

RootIndex::OpMask RootIndex::pattern_mask(const Pattern& pattern) const {
  switch (pattern.tag) {
    case Pattern::Tag::App:
      return pattern.head.tag == Head::Tag::Name ? bit(pattern.head.op) : kAny;
    case Pattern::Tag::Const:
      return bit(ir::OpKind::Constant);
    case Pattern::Tag::Call:
      return definitions_[pattern.callee];
    case Pattern::Tag::Alt: {
      OpMask mask = 0;
      for (const Pattern& option : pattern.args) mask |= pattern_mask(option);
      return mask;
    }
    case Pattern::Tag::Var:
      return kAny;
  }
  return kAny;
}

}  // namespace saturate::pm
