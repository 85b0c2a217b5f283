#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cost/cost_model.h"

namespace saturate::cost::gpu {

// Why the cuDNN/cuBLAS timer cannot time this configuration, or nullopt when it can. Decided from
// the configuration alone, so it needs no device (CudnnOpTimer::supports answers with it).
std::optional<std::string> cudnn_unsupported_reason(const OpConfig& config);

// How the timer runs an operator, in words, for reports: "cudnnConvolutionForward (+ ...)".
// "not timed" for operators it never supports.
std::string_view cudnn_timing_method(ir::OpKind op);

}  // namespace saturate::cost::gpu
