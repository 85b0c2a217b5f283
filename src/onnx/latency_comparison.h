#pragma once

namespace saturate::onnx {

// Medians of whole-model runs, original and optimized side by side (interleaved), and in how
// many rounds the optimized run beat the original's run of the same round.
struct LatencyComparison {
  double original_ms = 0;
  double optimized_ms = 0;
  int runs = 0;
  int optimized_faster_rounds = 0;

  // The optimized model is written only when a sign test says its gain is not noise: it ran
  // faster in at least faster_rounds_needed() of the paired rounds, the fewest whose chance
  // under "both models are equally fast" is at most 5 % (15 of 20), and its median is lower.
  // Two copies of one model pass in about 2 % of checks; before, half of them passed.
  bool keeps_optimized() const;
  // With fewer than 5 rounds no count is that unlikely; then every round must be faster.
  int faster_rounds_needed() const;
};

}  // namespace saturate::onnx
