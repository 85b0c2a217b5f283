#pragma once

#include <string>

#include "ir/graph.h"
#include "onnx/onnx_model.h"

namespace saturate::onnx {

// The serialized ONNX model (ModelProto bytes) of `graph`, with weights from `source`:
//  - fused activations, SAME padding, attention, gelu (before opset 20), layernorm (before 17)
//    are written as the ONNX operators they stand for; noop disappears;
//  - a pad feeding a VALID conv (or a VALID average pool, counting the pad) folds into its pads;
//  - operators whose inputs are all weights or constants (concat of weights after a merge rule,
//    enlarge, merge, ...) are evaluated by the reference interpreter and written as
//    initializers;
//  - opaque nodes are restored exactly (op type, domain, attributes, embedded constants).
// The opset is the source's default-domain opset when the graph holds opaque nodes of that
// domain (their schemas must not change), else max(17, source's). The ONNX checker checks the
// model (for the opsets it knows). Throws saturate::Error when a weight has no data in `source`
// (a graph from a .sxp file or a bundled model has none) or the checker rejects the model.
std::string export_onnx(const ir::Graph& graph, const OnnxModel& source);

// Whether weights go to a data file beside the model (`PATH.data`): Auto does so when the
// source model used external data or the weights pass what one protobuf holds (2 GB).
enum class ExternalData { Auto, On, Off };

// export_onnx, written atomically (temporary file in the
// destination directory, then rename): on any error nothing is written. With external data,
// initializers of 1 KiB or more are streamed to PATH.data as they are emitted (no second copy
// of the weights in memory) and the model refers to them; the checker is not run then.
void write_onnx(const ir::Graph& graph, const OnnxModel& source, const std::string& path,
                ExternalData external = ExternalData::Auto);
// How many rotary_embedding nodes of `graph` export writes as their formula rather than as ONNX
// Runtime's RotaryEmbedding (their tables are not known at export, or do not repeat their
// halves).
size_t rotary_embeddings_written_as_formula(const ir::Graph& graph, const OnnxModel& source);

// Whether write_onnx writes external data for this graph and mode.
bool writes_external_data(const ir::Graph& graph, const OnnxModel& source, ExternalData mode);

// An OnnxModel for exporting a graph that did not come from ONNX: `weights` gives every weight's
// data by name (tests and tools use random ones).
OnnxModel make_export_source(const ir::Graph& graph,
                             std::map<std::string, std::vector<float>> weights);

}  // namespace saturate::onnx
