#pragma once

// Nodes in an order where each comes after the nodes whose outputs it reads (internal to the
// onnx part). ONNX asks for that order, but ONNX Runtime does not, and tools append nodes at
// the end: onnxruntime's float16 converter adds the Cast of each graph input last.
#include <onnx/onnx_pb.h>

#include <string>

namespace saturate::onnx {

// Reorders `graph`'s nodes (not its subgraphs') topologically, keeping the file's order among
// nodes that are free to go, so a sorted graph is left as it is. A node depends on the nodes
// producing its inputs and the outer values its subgraphs read. Names no node produces (graph
// inputs, initializers, undefined names that validation reports) add no dependency. Returns
// whether anything moved; throws saturate::Error naming `source` and a node on a cycle.
bool sort_nodes_topologically(::onnx::GraphProto& graph, const std::string& source);

}  // namespace saturate::onnx
