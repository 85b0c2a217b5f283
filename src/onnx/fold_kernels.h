#pragma once

// Import-time evaluation of one ONNX node whose inputs are all known (internal to the onnx
// part): the shape arithmetic, masks and index tensors that exporters write.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "onnx/host_tensor.h"

namespace saturate::onnx {

struct FoldContext {
  int64_t opset = 17;
  // Largest tensor a fold may produce (elements).
  int64_t element_limit = int64_t{1} << 26;
};

// Evaluates a default-domain node on its known inputs (nullptr for an absent optional input).
// nullopt when the folder does not implement the operator, its attributes or its types: the
// node then stays in the graph. Throws saturate::Error (without the node's name, which the
// caller adds) on inputs the operator rejects: an index out of range, a shape that does not
// broadcast, a result over the element limit.
std::optional<std::vector<HostTensor>> fold_node(const ::onnx::NodeProto& node,
                                                 const std::vector<const HostTensor*>& inputs,
                                                 const FoldContext& context);

// One bound of ONNX Slice with a positive step on an axis of `size`: a negative bound counts
// from the end, and the result is clamped to [0, size]. The folder and the importer share it.
int64_t forward_slice_bound(int64_t bound, int64_t size);

// Whether fold_node knows the operator at all (Shape and Size, which need only types, are the
// pass's own).
bool is_foldable_op(const std::string& op_type);

}  // namespace saturate::onnx
