#pragma once

// Import-time constant folding (internal to the onnx part): every node whose value is known
// from initializers, constants and static shapes is evaluated once and replaced by an
// initializer, as onnxsim would leave the model.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace saturate::onnx {

struct FoldOptions {
  // Largest tensor one fold may produce (elements); a larger one is an error naming the node.
  int64_t element_limit = int64_t{1} << 26;
  // Nodes on float32 values only are folded when their inputs hold at most this many elements:
  // larger weight-only computations are the IR's (folded again on export), not worth a copy.
  // Unary operators the IR does not map (Cos, Sin, Neg, ...) are folded at any size.
  int64_t float_input_limit = int64_t{1} << 16;
  // Folding and shape inference alternate until nothing new folds, at most this often (a guard
  // only: every round but the last folds a node). Each Reshape whose target shape is computed
  // from the Shape of an earlier Reshape needs a round of its own: a Swin transformer's shifted
  // windows chain more than a hundred.
  int max_rounds = 4096;
};

struct FoldReport {
  int folded_nodes = 0;
  int rounds = 0;
  std::map<std::string, int> folded_by_op;  // ONNX op type -> nodes folded
  // infer_types_without_weights of the folded model, which import types its values from.
  std::map<std::string, ::onnx::TypeProto> types;
  // int64 values whose elements hold symbolic dims (shapes of dynamic values and arithmetic on
  // them); their nodes stay in the model, and the importer reads these where it reads constants.
  std::map<std::string, std::vector<int64_t>> symbolic_ints;
};

// Folds `model`'s main graph in place: folded nodes are removed, their outputs become
// initializers (Constant nodes become initializers too). Graph inputs must have static shapes
// for Shape and Size to fold. Throws saturate::Error naming the node when a fold rejects its
// inputs (a Gather index out of range in constants) or passes the element limit.
FoldReport fold_constants(::onnx::ModelProto& model, int64_t opset, const FoldOptions& options);

// ONNX shape inference on a copy of `model` that leaves out the data of large initializers
// (they become typed graph inputs: inference needs their types, not their values). Returns
// value name -> type for every value it typed. Never throws: what it cannot type is absent.
std::map<std::string, ::onnx::TypeProto> infer_types_without_weights(
    const ::onnx::ModelProto& model);

}  // namespace saturate::onnx
