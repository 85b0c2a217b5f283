#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor_type.h"

namespace saturate::onnx {

// An imported ONNX model: the IR graph plus what export needs to write a model that runs with
// the original weights and keeps the original's interface and metadata.
struct OnnxModel {
  ir::Graph graph;
  // Initializer data (float32, row-major) by IR weight name. Scalars and single-valued
  // initializers become IR constants instead and are not listed here.
  std::map<std::string, std::vector<float>> weights;

  int64_t ir_version = 8;
  int64_t opset = 17;                            // default domain ("" / "ai.onnx")
  std::map<std::string, int64_t> domain_opsets;  // other domains (opaque nodes use them)
  std::string producer_name;
  std::string producer_version;
  std::string model_domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::string graph_name;
  std::vector<std::pair<std::string, std::string>> metadata;  // metadata_props, in order
  // Graph inputs and outputs in ONNX order (inputs that are initializers excluded).
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  // Whether this came from an ONNX file (false: built for export from another graph).
  bool from_onnx = false;
  // Nodes import folded into initializers (shape arithmetic, masks), by ONNX op type.
  int folded_nodes = 0;
  std::map<std::string, int> folded_by_op;
  // Initializers read from external data files (model.onnx.data), and those files' paths (an
  // output never replaces or removes them).
  int external_tensors = 0;
  std::set<std::string> external_files;
  // The dims import pinned (`--input-shape NAME=1,128`), by graph input name: the original
  // model may still declare those dimensions dynamic, so ONNX Runtime's checks of it and of its
  // rewrite feed inputs of these shapes (ModelCheckRequest::input_shapes).
  std::map<std::string, ir::Dims> pinned_input_shapes;
  // The model's own dim_param for each symbolic dim its inputs and outputs declare (the first
  // name, inputs first), which export writes again: axes keep their names.
  std::map<int64_t, std::string> dim_names;
  // dim_params the model's declared outputs relate to expressions of other dims: ONNX makes
  // equal names equal sizes, so an output declared [.., total_sequence_length, ..] that the
  // graph computes as past_sequence_length + sequence_length makes the mask input's
  // total_sequence_length that sum for every run of the model. Those applied in this import
  // (ImportOptions::related_dims), and, in `new_relations`, those this import found that it did
  // not apply yet.
  std::map<std::string, std::string> related_dims;
  std::map<std::string, std::string> new_relations;
};

}  // namespace saturate::onnx
