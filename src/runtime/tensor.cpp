#include "runtime/tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ir/symbolic_dim.h"
#include "support/error.h"

namespace saturate::runtime {
namespace {

int64_t element_count(const ir::Dims& dims) {
  int64_t count = 1;
  for (int64_t d : dims) {
    // A symbolic dim (ir/symbolic_dim.h) is a negative handle, never a size to allocate.
    if (ir::is_symbolic(d)) {
      throw Error("a tensor cannot have the symbolic shape " + ir::to_string(dims) +
                  ": bind the symbols to sizes first");
    }
    if (d < 0) throw Error("tensor dimensions must not be negative, got " + ir::to_string(dims));
    count *= d;
  }
  return count;
}

// |a - b| that treats equal infinities and NaN against NaN as agreeing (an optimized graph that
// overflows or divides by zero exactly where the original does is not wrong), while a NaN or
// infinity on one side only is an infinite difference, so it can never hide behind max().
double element_difference(double a, double b) {
  if (a == b) return 0.0;
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  double diff = std::abs(a - b);
  return std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff;
}

void require_same_shape(const Tensor& a, const Tensor& b, const char* what) {
  if (a.dims != b.dims || a.data.size() != b.data.size()) {
    throw Error(std::string(what) + ": shapes differ, " + ir::to_string(a.dims) + " and " +
                ir::to_string(b.dims));
  }
}

}  // namespace

Tensor::Tensor(ir::Dims shape, double fill)
    : dims(std::move(shape)), data(static_cast<size_t>(element_count(dims)), fill) {}

Tensor::Tensor(ir::Dims shape, std::vector<double> values)
    : dims(std::move(shape)), data(std::move(values)) {
  int64_t expected = element_count(dims);
  if (static_cast<int64_t>(data.size()) != expected) {
    throw Error("a tensor of shape " + ir::to_string(dims) + " needs " + std::to_string(expected) +
                " values, got " + std::to_string(data.size()));
  }
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  require_same_shape(a, b, "max_abs_difference");
  double worst = 0.0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    worst = std::max(worst, element_difference(a.data[i], b.data[i]));
  }
  return worst;
}

double max_relative_difference(const Tensor& a, const Tensor& b) {
  require_same_shape(a, b, "max_relative_difference");
  double worst = 0.0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    double diff = element_difference(a.data[i], b.data[i]);
    if (diff == 0.0) continue;
    // inf / inf would be NaN when b is the infinite side: keep it infinite.
    double scale = 1.0 + std::abs(b.data[i]);
    worst =
        std::max(worst, std::isinf(scale) ? std::numeric_limits<double>::infinity() : diff / scale);
  }
  return worst;
}

double checksum(const Tensor& tensor) {
  double sum = 0.0;
  for (double v : tensor.data) sum += v;
  return sum;
}

}  // namespace saturate::runtime
