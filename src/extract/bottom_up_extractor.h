#pragma once

#include "extract/extractor.h"

namespace saturate::extract {

// The classic greedy extraction (egg's Extractor): per class the node with the least tree cost,
// its own cost plus its children's best tree costs (per use), iterated to a fixed point. Blind
// to sharing, so it misses choices that only pay off when a subterm is reused. Only strict
// improvements replace a choice, which keeps the choice acyclic when costs are non-negative.
class BottomUpExtractor final : public Extractor {
 public:
  std::string name() const override { return "bottom-up"; }
  ExtractionResult extract(const ExtractionGraph& graph,
                           const ExtractOptions& options = {}) const override;
};

}  // namespace saturate::extract
