#include "ir/symbolic_dim.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>
#include <numeric>

#include "support/checked_math.h"
#include "support/error.h"

namespace saturate::ir {
namespace {

int64_t checked(std::optional<int64_t> value) {
  if (!value) throw Error("symbolic dimension arithmetic overflows int64");
  return *value;
}

// Graded order: lower degree first, then lexicographic; the leading term is the last.
bool monomial_less(const Monomial& a, const Monomial& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

// a / b when b's symbols are a sub-multiset of a's.
std::optional<Monomial> monomial_quotient(const Monomial& a, const Monomial& b) {
  Monomial rest;
  size_t j = 0;
  for (SymbolId id : a) {
    if (j < b.size() && b[j] == id) {
      ++j;
    } else {
      rest.push_back(id);
    }
  }
  if (j != b.size()) return std::nullopt;
  return rest;
}

Monomial monomial_product(const Monomial& a, const Monomial& b) {
  Monomial out = a;
  out.insert(out.end(), b.begin(), b.end());
  std::sort(out.begin(), out.end());
  return out;
}

struct Symbol {
  std::string name;
  int64_t lower_bound = 1;
};

// The process's symbols and interned expressions. Guarded by one mutex: graphs are imported
// and rewritten on several threads in the Python bindings' callers.
class DimTable {
 public:
  static DimTable& instance() {
    static DimTable table;
    return table;
  }

  SymbolId symbol_named(std::string_view name, int64_t lower_bound) {
    std::lock_guard lock(mutex_);
    if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
    return add_symbol(std::string(name), lower_bound);
  }

  SymbolId fresh_symbol(std::string_view base, int64_t lower_bound) {
    std::lock_guard lock(mutex_);
    std::string name(base);
    for (int suffix = 2; by_name_.contains(name); ++suffix) {
      name = std::string(base) + "_" + std::to_string(suffix);
    }
    return add_symbol(name, lower_bound);
  }

  std::optional<SymbolId> find_symbol(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (auto it = by_name_.find(name); it != by_name_.end()) return it->second;
    return std::nullopt;
  }

  Symbol symbol(SymbolId id) {
    std::lock_guard lock(mutex_);
    if (id < 0 || static_cast<size_t>(id) >= symbols_.size()) {
      throw Error("unknown symbol id " + std::to_string(id));
    }
    return symbols_[static_cast<size_t>(id)];
  }

  void set_lower_bound(SymbolId id, int64_t lower_bound) {
    if (lower_bound < 0) throw Error("a symbol's lower bound cannot be negative");
    std::lock_guard lock(mutex_);
    symbols_.at(static_cast<size_t>(id)).lower_bound = lower_bound;
  }

  void assume(DimAssumption assumption) {
    std::lock_guard lock(mutex_);
    for (const auto& known : assumptions_) {
      if (known.dim != assumption.dim) continue;
      if (known.bound == assumption.bound) return;
      if (!is_symbolic(known.bound) && !is_symbolic(assumption.bound) &&
          known.bound <= assumption.bound) {
        return;
      }
    }
    assumptions_.push_back(std::move(assumption));
  }

  std::vector<DimAssumption> assumptions() {
    std::lock_guard lock(mutex_);
    return assumptions_;
  }

  int64_t intern(const DimExpr& expr) {
    std::lock_guard lock(mutex_);
    if (auto it = ids_.find(expr); it != ids_.end()) return it->second;
    int64_t id = kFirstSymbolicDim - static_cast<int64_t>(exprs_.size());
    exprs_.push_back(expr);
    ids_.emplace(expr, id);
    return id;
  }

  DimExpr expr(int64_t dim) {
    std::lock_guard lock(mutex_);
    auto index = static_cast<size_t>(kFirstSymbolicDim - dim);
    if (index >= exprs_.size()) throw Error("unknown symbolic dimension " + std::to_string(dim));
    return exprs_[index];
  }

 private:
  SymbolId add_symbol(std::string name, int64_t lower_bound) {
    if (lower_bound < 0) throw Error("a symbol's lower bound cannot be negative");
    auto id = static_cast<SymbolId>(symbols_.size());
    symbols_.push_back({name, lower_bound});
    by_name_.emplace(std::move(name), id);
    return id;
  }

  std::mutex mutex_;
  std::vector<Symbol> symbols_;
  std::map<std::string, SymbolId, std::less<>> by_name_;
  std::vector<DimExpr> exprs_;
  std::map<DimExpr, int64_t> ids_;
  std::vector<DimAssumption> assumptions_;
};

}  // namespace

DimExpr DimExpr::constant(int64_t value) {
  DimExpr expr;
  if (value != 0) expr.terms_.push_back({{}, value});
  return expr;
}

DimExpr DimExpr::symbol(SymbolId id) {
  DimExpr expr;
  expr.terms_.push_back({{id}, 1});
  return expr;
}

void DimExpr::normalize() {
  std::sort(terms_.begin(), terms_.end(),
            [](const auto& a, const auto& b) { return monomial_less(a.first, b.first); });
  std::vector<std::pair<Monomial, int64_t>> merged;
  for (auto& term : terms_) {
    if (!merged.empty() && merged.back().first == term.first) {
      merged.back().second = checked(checked_add(merged.back().second, term.second));
    } else {
      merged.push_back(std::move(term));
    }
  }
  std::erase_if(merged, [](const auto& term) { return term.second == 0; });
  terms_ = std::move(merged);
  if (denominator_ < 0) {
    denominator_ = -denominator_;
    for (auto& term : terms_) term.second = -term.second;
  }
  int64_t divisor = denominator_;
  for (const auto& term : terms_) divisor = std::gcd(divisor, term.second);
  if (terms_.empty()) divisor = denominator_;
  if (divisor > 1) {
    denominator_ /= divisor;
    for (auto& term : terms_) term.second /= divisor;
  }
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  DimExpr out;
  out.denominator_ = checked(checked_mul(a.denominator_, b.denominator_));
  for (const auto& [monomial, coefficient] : a.terms_) {
    out.terms_.push_back({monomial, checked(checked_mul(coefficient, b.denominator_))});
  }
  for (const auto& [monomial, coefficient] : b.terms_) {
    out.terms_.push_back({monomial, checked(checked_mul(coefficient, a.denominator_))});
  }
  out.normalize();
  return out;
}

DimExpr operator-(const DimExpr& a, const DimExpr& b) {
  return a + b * DimExpr::constant(-1);
}

DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  DimExpr out;
  out.denominator_ = checked(checked_mul(a.denominator_, b.denominator_));
  for (const auto& [ma, ca] : a.terms_) {
    for (const auto& [mb, cb] : b.terms_) {
      out.terms_.push_back({monomial_product(ma, mb), checked(checked_mul(ca, cb))});
    }
  }
  out.normalize();
  return out;
}

std::optional<DimExpr> DimExpr::divided_by(const DimExpr& divisor) const {
  if (divisor.terms_.empty()) return std::nullopt;
  // (Na / da) / (Nb / db) = (Na * db) / (Nb * da). Nb is made primitive (its content joins the
  // denominator); then long division in the graded order, which needs the leading coefficient
  // to divide each step's exactly (true for the sums exporters write, such as past + sequence).
  int64_t content = 0;
  for (const auto& term : divisor.terms_) content = std::gcd(content, term.second);
  if (divisor.terms_.back().second < 0) content = -content;
  DimExpr remainder = *this * constant(divisor.denominator_);
  remainder.denominator_ = 1;  // restored below as the quotient's denominator
  std::vector<std::pair<Monomial, int64_t>> primitive;
  for (const auto& [monomial, coefficient] : divisor.terms_) {
    primitive.push_back({monomial, coefficient / content});
  }
  const auto& [lead_monomial, lead_coefficient] = primitive.back();
  DimExpr quotient;
  // Each step removes the remainder's leading term; the cap and the check after the loop keep
  // the answer exact whatever the order does.
  for (int steps = 0; !remainder.terms_.empty(); ++steps) {
    if (steps > 256) return std::nullopt;
    const auto& [monomial, coefficient] = remainder.terms_.back();
    auto factor = monomial_quotient(monomial, lead_monomial);
    if (!factor || coefficient % lead_coefficient != 0) return std::nullopt;
    DimExpr step;
    step.terms_.push_back({*factor, coefficient / lead_coefficient});
    DimExpr product;
    for (const auto& [m, c] : primitive) {
      product.terms_.push_back(
          {monomial_product(m, *factor), checked(checked_mul(c, step.terms_[0].second))});
    }
    product.normalize();
    remainder = remainder - product;
    quotient = quotient + step;
  }
  quotient.denominator_ =
      checked(checked_mul(checked(checked_mul(content, denominator_)), quotient.denominator_));
  quotient.normalize();
  if (quotient * divisor != *this) return std::nullopt;
  return quotient;
}

std::optional<int64_t> DimExpr::as_constant() const {
  if (denominator_ != 1) return std::nullopt;
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_[0].first.empty()) return terms_[0].second;
  return std::nullopt;
}

std::optional<int64_t> DimExpr::least_value() const {
  SymbolBinding bounds;
  for (const auto& [monomial, coefficient] : terms_) {
    if (coefficient < 0 && !monomial.empty()) return std::nullopt;
    for (SymbolId id : monomial) bounds[symbol_name(id)] = symbol_lower_bound(id);
  }
  // Monotone in every symbol (all are >= 0, their coefficients too): the least value is at the
  // bounds, rounded up to the next integer, since every value the dimension takes is one.
  int64_t numerator = 0;
  for (const auto& [monomial, coefficient] : terms_) {
    int64_t term = coefficient;
    for (SymbolId id : monomial) term = checked(checked_mul(term, bounds[symbol_name(id)]));
    numerator = checked(checked_add(numerator, term));
  }
  // Ceiling division that rounds toward +infinity for negative numerators too.
  int64_t quotient = numerator / denominator_;
  if (numerator % denominator_ != 0 && numerator > 0) ++quotient;
  return quotient;
}

bool DimExpr::provably_divisible_by(int64_t divisor) const {
  if (divisor == 0) return false;
  if (denominator_ != 1) return false;  // not even known to be an integer
  return std::all_of(terms_.begin(), terms_.end(),
                     [&](const auto& term) { return term.second % divisor == 0; });
}

std::optional<int64_t> DimExpr::evaluate(const SymbolBinding& binding) const {
  int64_t numerator = 0;
  for (const auto& [monomial, coefficient] : terms_) {
    std::optional<int64_t> term = coefficient;
    for (SymbolId id : monomial) {
      auto it = binding.find(symbol_name(id));
      if (it == binding.end()) return std::nullopt;
      term = checked_mul(*term, it->second);
      if (!term) return std::nullopt;
    }
    auto sum = checked_add(numerator, *term);
    if (!sum) return std::nullopt;
    numerator = *sum;
  }
  if (numerator % denominator_ != 0) return std::nullopt;
  return numerator / denominator_;
}

std::vector<SymbolId> DimExpr::symbols() const {
  std::vector<SymbolId> ids;
  for (const auto& term : terms_) ids.insert(ids.end(), term.first.begin(), term.first.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::string DimExpr::to_string() const {
  std::string text;
  // Highest degree first reads naturally ("batch*sequence + 1"); within a degree by name, so
  // that the text does not depend on the order symbols were made in.
  std::vector<std::pair<std::vector<std::string>, int64_t>> named;
  for (const auto& [monomial, coefficient] : terms_) {
    std::vector<std::string> names;
    for (SymbolId id : monomial) names.push_back(symbol_name(id));
    std::sort(names.begin(), names.end());
    named.push_back({std::move(names), coefficient});
  }
  std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) {
    if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
    return a.first < b.first;
  });
  for (const auto& [monomial, coefficient] : named) {
    int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
    if (text.empty()) {
      if (coefficient < 0) text += "-";
    } else {
      text += coefficient < 0 ? " - " : " + ";
    }
    std::string factors;
    if (magnitude != 1 || monomial.empty()) factors = std::to_string(magnitude);
    for (const auto& name : monomial) factors += (factors.empty() ? "" : "*") + name;
    text += factors;
  }
  if (text.empty()) text = "0";
  if (denominator_ != 1) text = "(" + text + ")/" + std::to_string(denominator_);
  return text;
}

bool is_symbolic(int64_t dim) {
  return dim <= kFirstSymbolicDim && dim >= kLastSymbolicDim;
}

bool has_symbolic(const std::vector<int64_t>& dims) {
  return std::any_of(dims.begin(), dims.end(), is_symbolic);
}

SymbolId symbol_named(std::string_view name, int64_t lower_bound) {
  return DimTable::instance().symbol_named(name, lower_bound);
}

SymbolId fresh_symbol(std::string_view base, int64_t lower_bound) {
  return DimTable::instance().fresh_symbol(base, lower_bound);
}

std::optional<SymbolId> find_symbol(std::string_view name) {
  return DimTable::instance().find_symbol(name);
}

std::string symbol_name(SymbolId id) {
  return DimTable::instance().symbol(id).name;
}

int64_t symbol_lower_bound(SymbolId id) {
  return DimTable::instance().symbol(id).lower_bound;
}

void set_symbol_lower_bound(SymbolId id, int64_t lower_bound) {
  DimTable::instance().set_lower_bound(id, lower_bound);
}

int64_t to_dim(const DimExpr& expr) {
  if (auto value = expr.as_constant()) {
    if (*value < 0) throw Error("a dimension cannot be negative, got " + std::to_string(*value));
    return *value;
  }
  if (expr.symbols().empty()) {
    throw Error("a dimension must be an integer, got " + expr.to_string());
  }
  return DimTable::instance().intern(expr);
}

DimExpr to_expr(int64_t dim) {
  if (is_symbolic(dim)) return DimTable::instance().expr(dim);
  return DimExpr::constant(dim);
}

int64_t symbol_dim(SymbolId id) {
  return to_dim(DimExpr::symbol(id));
}

int64_t dim_sum(int64_t a, int64_t b) {
  if (!is_symbolic(a) && !is_symbolic(b)) return checked(checked_add(a, b));
  return to_dim(to_expr(a) + to_expr(b));
}

int64_t dim_difference(int64_t a, int64_t b) {
  if (!is_symbolic(a) && !is_symbolic(b)) return a - b;
  return to_dim(to_expr(a) - to_expr(b));
}

int64_t dim_product(int64_t a, int64_t b) {
  if (!is_symbolic(a) && !is_symbolic(b)) return checked(checked_mul(a, b));
  return to_dim(to_expr(a) * to_expr(b));
}

int64_t dim_product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) product = dim_product(product, d);
  return product;
}

std::optional<int64_t> dim_quotient(int64_t a, int64_t b) {
  if (!is_symbolic(a) && !is_symbolic(b)) {
    if (b == 0 || a % b != 0) return std::nullopt;
    return a / b;
  }
  auto quotient = to_expr(a).divided_by(to_expr(b));
  // A constant divisor that leaves a fraction (sequence / 2) is no dim for every value.
  if (!quotient || quotient->denominator() != 1) return std::nullopt;
  if (quotient->as_constant() && *quotient->as_constant() < 0) return std::nullopt;
  return to_dim(*quotient);
}

std::optional<int64_t> least_bound(const DimExpr& expr) {
  try {
    return expr.least_value();
  } catch (const Error&) {
    return std::nullopt;  // overflow
  }
}

int64_t dim_least_value(int64_t dim) {
  if (!is_symbolic(dim)) return dim;
  // Unknown (a difference such as 5 - batch): no bound at all, so that no >= test passes.
  return to_expr(dim).least_value().value_or(std::numeric_limits<int64_t>::min());
}

void assume_at_most(int64_t dim, int64_t bound, std::string reason) {
  if (dim == bound) return;
  if (!is_symbolic(dim) && !is_symbolic(bound)) {
    if (dim > bound) {
      throw Error("dimension " + std::to_string(dim) + " exceeds " + std::to_string(bound) + ": " +
                  reason);
    }
    return;
  }
  DimTable::instance().assume({dim, bound, std::move(reason)});
}

std::vector<DimAssumption> assumptions() {
  return DimTable::instance().assumptions();
}

bool assumptions_hold(const SymbolBinding& binding) {
  for (const auto& assumption : assumptions()) {
    auto value = to_expr(assumption.dim).evaluate(binding);
    auto bound = to_expr(assumption.bound).evaluate(binding);
    if (value && bound && *value > *bound) return false;
  }
  return true;
}

int64_t evaluate_dim(int64_t dim, const SymbolBinding& binding) {
  if (!is_symbolic(dim)) return dim;
  DimExpr expr = to_expr(dim);
  auto value = expr.evaluate(binding);
  if (!value) {
    for (SymbolId id : expr.symbols()) {
      if (!binding.contains(symbol_name(id))) {
        throw Error("no size given for the symbolic dimension " + symbol_name(id));
      }
    }
    throw Error("dimension " + expr.to_string() + " is not an integer at the sizes given");
  }
  if (*value < 0) {
    throw Error("dimension " + expr.to_string() + " is negative at the sizes given");
  }
  return *value;
}

std::vector<int64_t> evaluate_dims(const std::vector<int64_t>& dims, const SymbolBinding& binding) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (int64_t d : dims) out.push_back(evaluate_dim(d, binding));
  return out;
}

std::string dim_to_string(int64_t dim) {
  if (!is_symbolic(dim)) return std::to_string(dim);
  return to_expr(dim).to_string();
}

namespace {

// Recursive descent over + - * / ( ) integers and names.
class DimParser {
 public:
  explicit DimParser(std::string_view text) : text_(text) {}

  std::optional<DimExpr> parse() {
    auto expr = sum();
    skip_space();
    if (!expr || pos_ != text_.size()) return std::nullopt;
    return expr;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::optional<DimExpr> sum() {
    auto left = product();
    while (left) {
      if (accept('+')) {
        auto right = product();
        if (!right) return std::nullopt;
        left = *left + *right;
      } else if (accept('-')) {
        auto right = product();
        if (!right) return std::nullopt;
        left = *left - *right;
      } else {
        break;
      }
    }
    return left;
  }

  std::optional<DimExpr> product() {
    auto left = factor();
    while (left) {
      if (accept('*')) {
        auto right = factor();
        if (!right) return std::nullopt;
        left = *left * *right;
      } else if (accept('/')) {
        auto right = factor();
        if (!right) return std::nullopt;
        left = left->divided_by(*right);
      } else {
        break;
      }
    }
    return left;
  }

  std::optional<DimExpr> factor() {
    skip_space();
    if (accept('(')) {
      auto inner = sum();
      if (!inner || !accept(')')) return std::nullopt;
      return inner;
    }
    size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ - start > 18) return std::nullopt;
      return DimExpr::constant(std::stoll(std::string(text_.substr(start, pos_ - start))));
    }
    auto name_char = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':';
    };
    while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
    if (pos_ == start) return std::nullopt;
    return DimExpr::symbol(symbol_named(text_.substr(start, pos_ - start)));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<int64_t> parse_dim(std::string_view text) {
  try {
    auto expr = DimParser(text).parse();
    if (!expr) return std::nullopt;
    return to_dim(*expr);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace saturate::ir
