#include "eqsat/tensor_info.h"

#include <algorithm>

#include "eqsat/dim_facts.h"
#include "ir/symbolic_dim.h"
#include "support/error.h"

namespace saturate::eqsat {
namespace {

using Boundaries = std::vector<std::vector<int64_t>>;

void add_unique(std::vector<int64_t>& offsets, int64_t offset) {
  if (std::find(offsets.begin(), offsets.end(), offset) == offsets.end()) offsets.push_back(offset);
}

// Copies an input's boundaries on `from` axis into the output's `to` axis when sizes agree.
void carry(Boundaries& out, const ir::TensorType& output, const TensorInfo& input, int from,
           int to) {
  if (from < 0 || to < 0 || from >= input.type.rank() || to >= output.rank()) return;
  if (input.type.dims[from] != output.dims[to]) return;
  for (int64_t offset : input.boundaries[from]) add_unique(out[to], offset);
}

}  // namespace

TensorInfo TensorInfo::of(ir::TensorType type) {
  TensorInfo info{std::move(type), {}};
  info.boundaries.resize(info.type.dims.size());
  return info;
}

std::vector<std::vector<int64_t>> propagate_boundaries(ir::OpKind op, const ir::Attributes& attrs,
                                                       const std::vector<const TensorInfo*>& inputs,
                                                       const ir::TensorType& output) {
  Boundaries out(output.dims.size());
  int rank = output.rank();
  auto carry_aligned = [&](const TensorInfo& input) {
    // Right-aligned axes, as broadcasting aligns them.
    int offset = rank - input.type.rank();
    for (int axis = 0; axis < input.type.rank(); ++axis)
      carry(out, output, input, axis, axis + offset);
  };
  switch (op) {
    case ir::OpKind::EwAdd:
    case ir::OpKind::EwMul:
    case ir::OpKind::Add:
    case ir::OpKind::Mul:
    case ir::OpKind::Sub:
    case ir::OpKind::Div:
    case ir::OpKind::Pow:
    case ir::OpKind::Relu:
    case ir::OpKind::Tanh:
    case ir::OpKind::Sigmoid:
    case ir::OpKind::Sqrt:
    case ir::OpKind::Erf:
    case ir::OpKind::Exp:
    case ir::OpKind::Gelu:
    case ir::OpKind::FastGelu:
    case ir::OpKind::QuickGelu:
    case ir::OpKind::Clip:
    case ir::OpKind::LeakyRelu:
    case ir::OpKind::HardSigmoid:
    case ir::OpKind::Noop:
      for (const TensorInfo* input : inputs) carry_aligned(*input);
      break;
    case ir::OpKind::BatchNorm:
    case ir::OpKind::Softmax:
    case ir::OpKind::LayerNorm:
    case ir::OpKind::RMSNorm:
    case ir::OpKind::BiasGelu:
    case ir::OpKind::SkipLayerNorm:
    case ir::OpKind::SkipRMSNorm:
      carry_aligned(*inputs[0]);
      break;
    case ir::OpKind::MatMul: {
      const TensorInfo& a = *inputs[0];
      const TensorInfo& b = *inputs[1];
      for (int axis = 0; axis + 2 < rank; ++axis) {
        carry(out, output, a, axis - (rank - a.type.rank()), axis);
        carry(out, output, b, axis - (rank - b.type.rank()), axis);
      }
      carry(out, output, a, a.type.rank() - 2, rank - 2);
      carry(out, output, b, b.type.rank() - 1, rank - 1);
      break;
    }
    case ir::OpKind::FusedMatMul: {
      const TensorInfo& a = *inputs[0];
      const TensorInfo& b = *inputs[1];
      for (int axis = 0; axis + 2 < rank; ++axis) {
        carry(out, output, a, axis - (rank - a.type.rank()), axis);
        carry(out, output, b, axis - (rank - b.type.rank()), axis);
      }
      // Rows are a's rows (its columns when transposed), columns b's columns (or rows).
      bool trans_a = attrs.get_int("trans_a") == 1;
      bool trans_b = attrs.get_int("trans_b") == 1;
      carry(out, output, a, a.type.rank() - (trans_a ? 1 : 2), rank - 2);
      carry(out, output, b, b.type.rank() - (trans_b ? 2 : 1), rank - 1);
      break;
    }
    case ir::OpKind::Attention: {
      // Rows follow q's, columns v's, like the two matmuls it fuses.
      const TensorInfo& q = *inputs[0];
      const TensorInfo& v = *inputs[2];
      carry(out, output, q, q.type.rank() - 2, rank - 2);
      carry(out, output, v, v.type.rank() - 1, rank - 1);
      break;
    }
    case ir::OpKind::MultiHeadAttention:
    case ir::OpKind::QkvAttention:
      // Batch and rows follow q's (x's); the last axis mixes heads of v, so nothing is carried
      // there.
      carry(out, output, *inputs[0], 0, 0);
      carry(out, output, *inputs[0], 1, 1);
      break;
    case ir::OpKind::Conv2d:
    case ir::OpKind::FusedConv:
      carry(out, output, *inputs[0], 0, 0);
      carry(out, output, *inputs[1], 0, 1);              // output channels follow the weight's
      if (inputs.size() > 3) carry_aligned(*inputs[3]);  // the residual sum, added elementwise
      break;
    case ir::OpKind::PoolMax:
    case ir::OpKind::PoolAvg:
      carry(out, output, *inputs[0], 0, 0);
      carry(out, output, *inputs[0], 1, 1);
      break;
    case ir::OpKind::Transpose: {
      const auto& perm = attrs.get_ints("perm");
      for (int axis = 0; axis < rank; ++axis) {
        carry(out, output, *inputs[0], static_cast<int>(perm[axis]), axis);
      }
      break;
    }
    case ir::OpKind::Concat: {
      int64_t axis_attr = attrs.get_int("axis");
      int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
      std::vector<int64_t> own;
      int64_t offset = 0;
      for (size_t k = 0; k < inputs.size(); ++k) {
        const TensorInfo& input = *inputs[k];
        for (int d = 0; d < rank; ++d) {
          if (d != axis) carry(out, output, input, d, d);
        }
        // Offsets are dims: `past + sequence` where the parts are symbolic.
        for (int64_t inner : input.boundaries[axis]) {
          add_unique(out[axis], ir::dim_sum(offset, inner));
        }
        offset = ir::dim_sum(offset, input.type.dims[axis]);
        if (k + 1 < inputs.size()) own.push_back(offset);
      }
      // The concat's own cuts go last, so that a split undoes the outermost concat first.
      std::erase_if(out[axis], [&own](int64_t b) {
        return std::find(own.begin(), own.end(), b) != own.end();
      });
      out[axis].insert(out[axis].end(), own.begin(), own.end());
      break;
    }
    default:
      break;  // reshape, enlarge, merge, reductions, split (handled by split_parts): no cuts kept
  }
  return out;
}

std::optional<int64_t> split_point(const TensorInfo& info, int axis) {
  if (axis < 0 || axis >= info.type.rank() || info.boundaries[axis].empty()) return std::nullopt;
  return info.boundaries[axis].back();
}

std::vector<int64_t> split_sizes(const ir::TensorType& input, int64_t axis, int64_t cut) {
  int64_t normalized = axis < 0 ? axis + input.rank() : axis;
  if (normalized < 0 || normalized >= input.rank() ||
      !cut_inside(cut, input.dims[static_cast<size_t>(normalized)])) {
    throw Error("cannot split " + ir::to_string(input) + " on axis " + std::to_string(axis) +
                " at " + ir::dim_text(cut));
  }
  return {cut, ir::dim_difference(input.dims[static_cast<size_t>(normalized)], cut)};
}

std::array<TensorInfo, 2> split_parts(const TensorInfo& info, int axis, int64_t cut) {
  if (axis < 0 || axis >= info.type.rank() || !cut_inside(cut, info.type.dims[axis])) {
    throw Error("cannot split " + ir::to_string(info.type) + " on axis " + std::to_string(axis) +
                " at " + ir::dim_text(cut));
  }
  std::array<TensorInfo, 2> parts;
  for (int k = 0; k < 2; ++k) {
    ir::TensorType type = info.type;
    type.dims[axis] = k == 0 ? cut : ir::dim_difference(info.type.dims[axis], cut);
    parts[k] = TensorInfo::of(type);
    for (int d = 0; d < info.type.rank(); ++d) {
      if (d != axis) {
        parts[k].boundaries[d] = info.boundaries[d];
        continue;
      }
      // A boundary goes with the part it is inside of at every value of the symbols; one
      // whose side depends on the sizes is dropped (a split then cannot cut there).
      for (int64_t b : info.boundaries[d]) {
        if (k == 0 && provably_less(b, cut)) parts[k].boundaries[d].push_back(b);
        if (k == 1 && provably_less(cut, b)) {
          parts[k].boundaries[d].push_back(ir::dim_difference(b, cut));
        }
      }
    }
  }
  return parts;
}

}  // namespace saturate::eqsat
