#pragma once

// IEEE binary16 ("float16") and bfloat16 elements, stored as their 16 bits. Conversions from
// float round to nearest, ties to even, as ONNX's Cast and every runtime's kernels do; NaN stays
// NaN and values past the largest finite one become infinities.
#include <cstdint>

namespace saturate {

uint16_t float_to_half_bits(float value);
float half_bits_to_float(uint16_t bits);

uint16_t float_to_bfloat16_bits(float value);
float bfloat16_bits_to_float(uint16_t bits);

}  // namespace saturate
