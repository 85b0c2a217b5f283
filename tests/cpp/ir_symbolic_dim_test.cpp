#include <gtest/gtest.h>

#include "ir/symbolic_dim.h"
#include "support/error.h"

using namespace saturate::ir;

namespace {

int64_t dim(const char* text) {
  auto parsed = parse_dim(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(0);
}

}  // namespace

TEST(SymbolicDim, EqualSizesAreEqualDims) {
  int64_t batch = symbol_dim(symbol_named("batch"));
  int64_t sequence = symbol_dim(symbol_named("sequence"));
  EXPECT_TRUE(is_symbolic(batch));
  EXPECT_EQ(dim_product(batch, sequence), dim_product(sequence, batch));
  EXPECT_EQ(dim_product(batch, sequence), dim("sequence * batch"));
  EXPECT_EQ(dim_sum(dim("past_sequence_length"), sequence), dim("sequence + past_sequence_length"));
  EXPECT_NE(batch, sequence);
  EXPECT_EQ(dim_product(dim_product(batch, sequence), 768), dim("768*batch*sequence"));
  // Constants stay sizes.
  EXPECT_EQ(dim_product(12, 64), 768);
  EXPECT_EQ(dim_sum(dim_difference(batch, batch), 5), 5);
}

TEST(SymbolicDim, ExactDivision) {
  int64_t flat = dim("768*batch*sequence");
  EXPECT_EQ(dim_quotient(flat, dim("12*batch")), dim("64*sequence"));
  EXPECT_EQ(dim_quotient(flat, dim("768*sequence*batch")), 1);
  EXPECT_EQ(dim_quotient(dim("2*batch*sequence + 2*batch*past"), dim("sequence + past")),
            dim("2*batch"));
  // Not a dim for every value: refused, never guessed.
  EXPECT_FALSE(dim_quotient(dim("sequence"), 2).has_value());
  EXPECT_FALSE(dim_quotient(dim("sequence"), dim("batch")).has_value());
  EXPECT_FALSE(dim_quotient(dim("sequence + 1"), dim("sequence")).has_value());
  EXPECT_FALSE(dim_quotient(dim("batch"), 0).has_value());
  EXPECT_EQ(dim_quotient(12, 4), 3);
  EXPECT_FALSE(dim_quotient(12, 5).has_value());
}

TEST(SymbolicDim, FractionsKeepTheirDenominator) {
  DimExpr half = to_expr(dim("sequence")).divided_by(DimExpr::constant(2)).value();
  EXPECT_EQ(half.denominator(), 2);
  EXPECT_EQ(half.to_string(), "(sequence)/2");
  EXPECT_EQ(half * DimExpr::constant(2), to_expr(dim("sequence")));
  EXPECT_FALSE(half.provably_divisible_by(1));
  EXPECT_FALSE(half.evaluate({{"sequence", 7}}).has_value());
  EXPECT_EQ(half.evaluate({{"sequence", 8}}), 4);
}

TEST(SymbolicDim, LowerBoundsAndDivisibility) {
  SymbolId past = symbol_named("cache_length", 0);
  EXPECT_EQ(symbol_lower_bound(past), 0);
  EXPECT_EQ(dim_least_value(symbol_dim(past)), 0);
  EXPECT_EQ(dim_least_value(dim("cache_length + sequence")), 1);
  EXPECT_EQ(dim_least_value(dim("3*batch*sequence + 2")), 5);
  // A negative constant keeps the expression monotone; a negative symbol term does not, and
  // then no bound is claimed.
  EXPECT_EQ(dim_least_value(dim("sequence - 1 + batch")), 1);
  EXPECT_EQ(to_expr(dim("sequence - batch + 5")).least_value(), std::nullopt);
  // Rounded up toward +infinity, negative values too: (sequence - 3)/2 is -1 at sequence 1.
  DimExpr fraction =
      (to_expr(dim("sequence")) - DimExpr::constant(3)).divided_by(DimExpr::constant(2)).value();
  EXPECT_EQ(least_bound(fraction), -1);
  EXPECT_EQ(least_bound(DimExpr::constant(-4)), -4);
  EXPECT_TRUE(to_expr(dim("12*batch + 24")).provably_divisible_by(12));
  EXPECT_FALSE(to_expr(dim("12*batch + 2")).provably_divisible_by(4));
}

TEST(SymbolicDim, EvaluatesAtABinding) {
  SymbolBinding binding{{"batch", 2}, {"sequence", 7}, {"cache_length", 0}};
  EXPECT_EQ(evaluate_dim(dim("768*batch*sequence"), binding), 768 * 14);
  EXPECT_EQ(evaluate_dims({dim("cache_length + sequence"), 4}, binding),
            (std::vector<int64_t>{7, 4}));
  try {
    evaluate_dim(dim("unbound_symbol + 1"), binding);
    FAIL() << "expected an error";
  } catch (const saturate::Error& error) {
    EXPECT_NE(std::string(error.what()).find("unbound_symbol"), std::string::npos);
  }
}

TEST(SymbolicDim, TextRoundTrips) {
  for (const char* text : {"batch", "batch*sequence", "sequence + past_sequence_length", "64",
                           "2*batch*sequence + 3"}) {
    int64_t parsed = dim(text);
    EXPECT_EQ(parse_dim(dim_to_string(parsed)), parsed) << text << " -> " << dim_to_string(parsed);
  }
  EXPECT_FALSE(parse_dim("batch +").has_value());
  EXPECT_FALSE(parse_dim("").has_value());
  EXPECT_FALSE(parse_dim("3 - 5").has_value());  // negative: no dimension
  EXPECT_FALSE(parse_dim("7/2").has_value());
}

TEST(SymbolicDim, FreshSymbolsNeverAliasNames) {
  SymbolId named = symbol_named("unk");
  SymbolId fresh = fresh_symbol("unk");
  EXPECT_NE(named, fresh);
  EXPECT_NE(symbol_name(fresh), "unk");
  EXPECT_EQ(find_symbol(symbol_name(fresh)), fresh);
}

TEST(SymbolicDim, OverflowIsAnErrorNotWrapAround) {
  int64_t big = dim("999999999999999999*batch");
  EXPECT_THROW(dim_product(big, 10), saturate::Error);
}
