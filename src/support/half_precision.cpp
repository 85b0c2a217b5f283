#include "support/half_precision.h"

#include <bit>
#include <cmath>

namespace saturate {
namespace {

constexpr uint32_t kFloatExponentMask = 0x7f800000u;
// 65520: halfway between float16's largest finite value (65504) and the next power of two; it
// and everything above round to infinity (the tie goes to the even neighbour, infinity).
constexpr uint32_t kHalfOverflowBits = 0x477ff000u;
// 2^-14, float16's smallest normal value.
constexpr uint32_t kHalfMinNormalBits = 0x38800000u;

}  // namespace

uint16_t float_to_half_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= kFloatExponentMask) {  // infinity or NaN (NaN keeps a quiet payload bit)
    const bool nan = magnitude > kFloatExponentMask;
    return static_cast<uint16_t>(sign | 0x7c00u |
                                 (nan ? 0x0200u | ((magnitude >> 13) & 0x3ffu) : 0));
  }
  if (magnitude >= kHalfOverflowBits) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < kHalfMinNormalBits) {
    // Subnormal or zero: a count of 2^-24 steps. Scaling by 2^24 is exact, and nearbyint rounds
    // ties to even in the default rounding mode; 1024 steps is the smallest normal's encoding.
    const float steps = std::nearbyint(std::bit_cast<float>(magnitude) * 16777216.0f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(steps));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest
  // even; a carry out of the mantissa correctly increments the exponent.
  const uint32_t rebiased = magnitude - (uint32_t{127 - 15} << 23);
  const uint32_t rounded = rebiased + 0x0fffu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float half_bits_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | kFloatExponentMask | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > kFloatExponentMask) {  // NaN: keep it NaN (quiet)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round the low 16 bits to nearest even; past the largest finite value this reaches infinity.
  const uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

float bfloat16_bits_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

}  // namespace saturate
