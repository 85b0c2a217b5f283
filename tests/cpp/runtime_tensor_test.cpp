// Tensor construction and the comparison helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/tensor.h"
#include "support/error.h"

using saturate::Error;
using saturate::runtime::Tensor;
namespace rt = saturate::runtime;

TEST(Tensor, FillConstructorSizesFromDims) {
  Tensor t({2, 3}, 1.5);
  EXPECT_EQ(t.num_elements(), 6);
  EXPECT_EQ(t.rank(), 2);
  for (double v : t.data) EXPECT_EQ(v, 1.5);
}

TEST(Tensor, ScalarHasOneElement) {
  Tensor t({}, 4.0);
  EXPECT_EQ(t.num_elements(), 1);
  EXPECT_EQ(t.rank(), 0);
}

TEST(Tensor, ValueConstructorChecksCount) {
  Tensor ok({2, 2}, std::vector<double>{1, 2, 3, 4});
  EXPECT_EQ(ok.data[3], 4.0);
  try {
    Tensor bad({2, 3}, std::vector<double>{1, 2, 3});
    FAIL() << "expected an element-count error";
  } catch (const Error& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("[2 3]"), std::string::npos) << message;
    EXPECT_NE(message.find("6"), std::string::npos) << message;
  }
}

TEST(Tensor, NegativeDimsAreRejected) {
  EXPECT_THROW(Tensor({2, -1}), Error);
}

TEST(Tensor, MaxAbsDifference) {
  Tensor a({3}, std::vector<double>{1, 2, 3});
  Tensor b({3}, std::vector<double>{1, 2.5, 1});
  EXPECT_DOUBLE_EQ(rt::max_abs_difference(a, b), 2.0);
  EXPECT_DOUBLE_EQ(rt::max_abs_difference(a, a), 0.0);
}

TEST(Tensor, MaxRelativeDifferenceDividesByOnePlusB) {
  Tensor a({2}, std::vector<double>{110, 0.5});
  Tensor b({2}, std::vector<double>{100, 0.0});
  // |110 - 100| / 101 = 0.0990..., |0.5 - 0| / 1 = 0.5.
  EXPECT_DOUBLE_EQ(rt::max_relative_difference(a, b), 0.5);
  Tensor c({1}, std::vector<double>{110});
  Tensor d({1}, std::vector<double>{100});
  EXPECT_DOUBLE_EQ(rt::max_relative_difference(c, d), 10.0 / 101.0);
}

TEST(Tensor, DifferencesRejectShapeMismatch) {
  Tensor a({2, 3});
  Tensor b({3, 2});
  EXPECT_THROW(rt::max_abs_difference(a, b), Error);
  EXPECT_THROW(rt::max_relative_difference(a, b), Error);
}

TEST(Tensor, NanOnOneSideIsAnInfiniteDifference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor a({2}, std::vector<double>{nan, 1});
  Tensor b({2}, std::vector<double>{0, 1});
  EXPECT_TRUE(std::isinf(rt::max_abs_difference(a, b)));
  EXPECT_TRUE(std::isinf(rt::max_relative_difference(a, b)));
  // The same NaN or infinity on both sides agrees.
  Tensor c({2}, std::vector<double>{nan, inf});
  EXPECT_EQ(rt::max_abs_difference(c, c), 0.0);
  EXPECT_EQ(rt::max_relative_difference(c, c), 0.0);
  Tensor d({2}, std::vector<double>{nan, 1});
  EXPECT_TRUE(std::isinf(rt::max_relative_difference(d, c)));
}

TEST(Tensor, ChecksumIsTheSum) {
  Tensor t({2, 2}, std::vector<double>{1, -2, 3.5, 4});
  EXPECT_DOUBLE_EQ(rt::checksum(t), 6.5);
  EXPECT_EQ(rt::checksum(Tensor(saturate::ir::Dims{0})), 0.0);
}
