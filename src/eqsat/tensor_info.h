#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/tensor_type.h"

namespace saturate::eqsat {

// What the shape analysis knows of a tensor: its type, and per axis the offsets where concats
// joined it (in the order recorded). TENSAT's binary split cuts at the last recorded boundary of
// its axis, so that a split can undo a concat made by a rule, even through operators that carry
// the boundary along (relu of a concat, a matmul with a concatenated weight, ...).
struct TensorInfo {
  ir::TensorType type;
  std::vector<std::vector<int64_t>> boundaries;  // [axis] -> offsets, recorded order

  static TensorInfo of(ir::TensorType type);
  bool operator==(const TensorInfo&) const = default;
};

// Boundaries of an operator's (single) output from its inputs'. Operators that move data
// between axes in ways that do not keep a cut (reshape, pooling over space, ...) drop them.
std::vector<std::vector<int64_t>> propagate_boundaries(ir::OpKind op, const ir::Attributes& attrs,
                                                       const std::vector<const TensorInfo*>& inputs,
                                                       const ir::TensorType& output);

// Where a binary split on `axis` cuts: the last recorded boundary, if any.
std::optional<int64_t> split_point(const TensorInfo& info, int axis);

// The sizes of a binary split's parts on `axis` (negative counts from the end): {cut, size -
// cut}, in dim arithmetic (ir/symbolic_dim.h). Throws saturate::Error unless both parts are
// dimensions at every value of the symbols.
std::vector<int64_t> split_sizes(const ir::TensorType& input, int64_t axis, int64_t cut);

// The two parts of a split at `cut`; boundaries inside each part are kept, shifted (offsets and
// cuts are dims: they may be symbolic, and are compared only where that is proved for every
// value of the symbols).
std::array<TensorInfo, 2> split_parts(const TensorInfo& info, int axis, int64_t cut);

}  // namespace saturate::eqsat
