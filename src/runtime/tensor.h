#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace saturate::runtime {

// A dense row-major tensor for the reference interpreter. Values are held as doubles; in
// float32 mode the interpreter rounds every produced value to float, so results match a
// float32 execution of the same arithmetic order.
struct Tensor {
  ir::Dims dims;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(ir::Dims shape, double fill = 0.0);
  Tensor(ir::Dims shape, std::vector<double> values);  // checks the element count

  int64_t num_elements() const { return static_cast<int64_t>(data.size()); }
  int rank() const { return static_cast<int>(dims.size()); }
};

using TensorMap = std::map<std::string, Tensor>;

// Largest |a - b| over all elements; throws saturate::Error when shapes differ.
double max_abs_difference(const Tensor& a, const Tensor& b);
// Largest |a - b| / (1 + |b|): relative for large values, absolute near zero.
double max_relative_difference(const Tensor& a, const Tensor& b);
// Sum of elements: a cheap fingerprint printed by `saturate run`.
double checksum(const Tensor& tensor);

}  // namespace saturate::runtime
