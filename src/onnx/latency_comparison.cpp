#include "onnx/latency_comparison.h"

namespace saturate::onnx {

bool LatencyComparison::keeps_optimized() const {
  return runs > 0 && verdict == "faster";
}

}  // namespace saturate::onnx
