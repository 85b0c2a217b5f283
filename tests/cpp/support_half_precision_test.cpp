#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "support/half_precision.h"

namespace saturate {
namespace {

using Convert = uint16_t (*)(float);
using Widen = float (*)(uint16_t);

// The property round-to-nearest-even means: no other finite 16-bit value is closer to `value`,
// and on a tie the chosen encoding is even. Checked against both neighbours of the result.
void expect_nearest_even(float value, Convert convert, Widen widen, uint16_t largest_finite) {
  const uint16_t bits = convert(value);
  const uint16_t magnitude = bits & 0x7fffu;
  ASSERT_LE(magnitude, largest_finite) << "value " << value << " overflowed";
  ASSERT_EQ(bits & 0x8000u, std::signbit(value) ? 0x8000u : 0u);
  const double error = std::fabs(static_cast<double>(widen(magnitude)) - std::fabs(value));
  for (int step : {-1, 1}) {
    const int neighbour = static_cast<int>(magnitude) + step;
    if (neighbour < 0 || neighbour > largest_finite) continue;
    const double other =
        std::fabs(static_cast<double>(widen(static_cast<uint16_t>(neighbour))) - std::fabs(value));
    ASSERT_LE(error, other) << "value " << value << " -> 0x" << std::hex << bits;
    if (error == other) {
      EXPECT_EQ(magnitude % 2, 0) << "tie at " << value << " not to even";
    }
  }
}

TEST(HalfPrecision, EveryHalfValueWidensAndNarrowsBackUnchanged) {
  for (uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto half = static_cast<uint16_t>(bits);
    const float widened = half_bits_to_float(half);
    if (std::isnan(widened)) {
      EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(widened))));
      EXPECT_EQ(bits & 0x7c00u, 0x7c00u);
      continue;
    }
    EXPECT_EQ(float_to_half_bits(widened), half) << std::hex << bits;
    const uint16_t bf = half;
    const float bf_widened = bfloat16_bits_to_float(bf);
    if (!std::isnan(bf_widened)) {
      EXPECT_EQ(float_to_bfloat16_bits(bf_widened), bf);
    }
  }
}

TEST(HalfPrecision, KnownFloat16Encodings) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);  // the tie goes to the even infinity
  EXPECT_EQ(float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half_bits(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(float_to_half_bits(0x1p-25f), 0x0000);         // half a step: ties to even zero
  EXPECT_EQ(float_to_half_bits(0x1.8p-24f), 0x0002);       // one and a half steps: to even 2
  EXPECT_EQ(float_to_half_bits(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(float_to_half_bits(0x1.ffcp-15f), 0x0400);     // 1023.5 steps: ties up into the normals
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1p-11f), 0x3c00);  // tie between 1 and 1+2^-10
  EXPECT_EQ(float_to_half_bits(1.0f + 0x1.8p-10f), 0x3c02);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(std::nanf("")))));
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
}

TEST(HalfPrecision, KnownBfloat16Encodings) {
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 0x1p-8f), 0x3f80);    // tie to even
  EXPECT_EQ(float_to_bfloat16_bits(1.0f + 0x1.8p-7f), 0x3f82);  // tie to even, upwards
  EXPECT_EQ(float_to_bfloat16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(std::isnan(bfloat16_bits_to_float(float_to_bfloat16_bits(std::nanf("")))));
}

TEST(HalfPrecision, FloatsRoundToTheNearestEvenValue) {
  // A stride through every positive float below each format's overflow threshold, signs both.
  for (uint64_t bits = 0; bits < 0x477ff000u; bits += 4099) {
    const float value = std::bit_cast<float>(static_cast<uint32_t>(bits));
    expect_nearest_even(value, float_to_half_bits, half_bits_to_float, 0x7bff);
    expect_nearest_even(-value, float_to_half_bits, half_bits_to_float, 0x7bff);
  }
  for (uint64_t bits = 0; bits < 0x7f7f8000u; bits += 1048573) {
    const float value = std::bit_cast<float>(static_cast<uint32_t>(bits));
    expect_nearest_even(value, float_to_bfloat16_bits, bfloat16_bits_to_float, 0x7f7f);
  }
}

}  // namespace
}  // namespace saturate
