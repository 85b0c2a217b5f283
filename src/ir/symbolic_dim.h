#pragma once

// Symbolic dimensions: sizes a model leaves open (ONNX `dim_param`s such as `batch` or
// `past_sequence_length`) and expressions over them (`batch*sequence`, `past_sequence_length +
// sequence_length`, `hidden/12`).
//
// A dimension is still one int64 wherever the IR keeps dims (`Dims`, attributes, e-node
// identity): values >= 0 are sizes, and values at or below kFirstSymbolicDim name an
// expression interned in one process-wide table. Interning a normal form makes equal sizes
// equal integers, so every `==` on dims that the IR, the rules and the e-graph already do is
// a proof over all values of the symbols, never a test at sample sizes. Arithmetic on dims goes
// through dim_sum / dim_product / dim_quotient below; plain `+` or `*` on a symbolic dim is a
// bug (it overflows, which UBSan reports in the tests).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace saturate::ir {

using SymbolId = int32_t;

// Symbols whose value is bound when a graph runs: symbol name -> size.
using SymbolBinding = std::map<std::string, int64_t, std::less<>>;

// A product of symbols: their ids sorted, repeated for powers; empty for the constant term.
using Monomial = std::vector<SymbolId>;

// (sum of coefficient * monomial) / denominator in normal form: terms sorted by monomial, no
// zero coefficient, denominator positive and coprime with the coefficients. Polynomials equal
// for every value of their symbols have the same normal form, so == decides equality.
class DimExpr {
 public:
  DimExpr() = default;  // the constant 0
  static DimExpr constant(int64_t value);
  static DimExpr symbol(SymbolId id);

  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  // this / divisor when the quotient is a polynomial over the same symbols divided by a
  // constant: (batch*sequence*768) / (batch*12) = 64*sequence, sequence / 2 (denominator 2);
  // nullopt for a divisor that is zero or does not divide (sequence / batch).
  std::optional<DimExpr> divided_by(const DimExpr& divisor) const;

  std::optional<int64_t> as_constant() const;
  // 1 unless the expression divides by a constant that does not divide its coefficients.
  int64_t denominator() const { return denominator_; }
  // The numerator's terms (monomial, coefficient) in normal order.
  const std::vector<std::pair<Monomial, int64_t>>& terms() const { return terms_; }
  bool is_constant() const { return as_constant().has_value(); }
  // The least value over every assignment of the symbols at or above their lower bounds,
  // when the expression is monotone in them (no negative coefficient); nullopt otherwise.
  std::optional<int64_t> least_value() const;
  // Whether the value is a multiple of `divisor` for every value of the symbols (decided on
  // the coefficients: sufficient, not necessary).
  bool provably_divisible_by(int64_t divisor) const;
  // The value with each symbol bound; nullopt when a symbol is unbound or the value is not an
  // integer (a binding that contradicts a division the model does).
  std::optional<int64_t> evaluate(const SymbolBinding& binding) const;
  // Every symbol the expression reads.
  std::vector<SymbolId> symbols() const;

  // "batch*sequence", "past_sequence_length + sequence_length", "(sequence)/2".
  std::string to_string() const;

  bool operator==(const DimExpr&) const = default;
  auto operator<=>(const DimExpr&) const = default;

 private:
  void normalize();

  std::vector<std::pair<Monomial, int64_t>> terms_;
  int64_t denominator_ = 1;
};

// Dims in [kLastSymbolicDim, kFirstSymbolicDim] are interned expressions. Above the range, -1
// keeps Reshape's "infer" meaning and 0 its "copy" meaning in attributes; below it, INT64_MIN
// stays the "from the very start" bound exporters write in Slice.
inline constexpr int64_t kFirstSymbolicDim = -(int64_t{1} << 62);
inline constexpr int64_t kLastSymbolicDim = kFirstSymbolicDim - (int64_t{1} << 61);

bool is_symbolic(int64_t dim);
// Whether any dimension is symbolic.
bool has_symbolic(const std::vector<int64_t>& dims);

// The symbol named `name`, created with `lower_bound` when new (one symbol per name in the
// process, as ONNX makes equal dim_params equal sizes).
SymbolId symbol_named(std::string_view name, int64_t lower_bound = 1);
// A new symbol for a size nothing names (an unnamed dynamic dim, a data-dependent one):
// `base`, or `base_2`, ... where that name is taken.
SymbolId fresh_symbol(std::string_view base, int64_t lower_bound = 1);
std::optional<SymbolId> find_symbol(std::string_view name);
std::string symbol_name(SymbolId id);
int64_t symbol_lower_bound(SymbolId id);
// Sets the lower bound (a past length may be empty: 0; a batch may not: 1).
void set_symbol_lower_bound(SymbolId id, int64_t lower_bound);

// The dim of an expression: its value when constant (throws saturate::Error when negative or
// fractional), else its interned id.
int64_t to_dim(const DimExpr& expr);
// The expression of a dim (a constant for a size).
DimExpr to_expr(int64_t dim);
// The dim naming one symbol.
int64_t symbol_dim(SymbolId id);

// Dim arithmetic (sizes stay sizes; throws saturate::Error on int64 overflow).
int64_t dim_sum(int64_t a, int64_t b);
int64_t dim_difference(int64_t a, int64_t b);
int64_t dim_product(int64_t a, int64_t b);
int64_t dim_product(const std::vector<int64_t>& dims);
// a / b when it is a dim for every value of the symbols (see DimExpr::divided_by; a constant
// divisor must divide the coefficients exactly); nullopt otherwise.
std::optional<int64_t> dim_quotient(int64_t a, int64_t b);
// A lower bound on `expr` at every value of its symbols at or above their lower bounds (exact
// for a constant; DimExpr::least_value), nullopt where none is known or it overflows.
std::optional<int64_t> least_bound(const DimExpr& expr);
// The least value the dim takes (its value for a size; INT64_MIN when no bound is known).
int64_t dim_least_value(int64_t dim);
// Whether `a` and `b` are equal for every value of the symbols (interning makes this ==).
inline bool dims_equal(int64_t a, int64_t b) {
  return a == b;
}

// What import takes a model to accept beyond its declared types, each with the reason: a table
// sliced to a symbolic length (`position_ids[:, :sequence]` of a 512-row buffer) has that many
// rows only while the length fits the table, and the model fails past it anyway (the sliced rows
// meet tensors of the full length). Reported with the run; checked at every shape Saturate runs.
// The bound is a size or a dim of its own: positions read from a mask of `total_sequence_length`
// columns at `arange(past + sequence)` need past + sequence <= total_sequence_length.
struct DimAssumption {
  int64_t dim;    // a dim; it or the bound is symbolic
  int64_t bound;  // dim <= bound
  std::string reason;
};
void assume_at_most(int64_t dim, int64_t bound, std::string reason);
std::vector<DimAssumption> assumptions();
// Whether every assumption over symbols the binding sets holds there.
bool assumptions_hold(const SymbolBinding& binding);

// The size at a binding; throws saturate::Error naming the unbound symbol.
int64_t evaluate_dim(int64_t dim, const SymbolBinding& binding);
std::vector<int64_t> evaluate_dims(const std::vector<int64_t>& dims, const SymbolBinding& binding);

// "64", "batch", "batch*sequence".
std::string dim_to_string(int64_t dim);
// Reads what dim_to_string writes (integers, symbol names, +, -, *, / by an integer,
// parentheses); unknown names become symbols. nullopt on anything else.
std::optional<int64_t> parse_dim(std::string_view text);

}  // namespace saturate::ir
