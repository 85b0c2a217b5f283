#include "onnx/latency_comparison.h"

namespace saturate::onnx {

bool LatencyComparison::keeps_optimized() const {
  return runs > 0 && verdict == "faster" && optimized_ms < original_ms;
}

}  // namespace saturate::onnx
