#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "extract/extraction_graph.h"
#include "extract/extraction_result.h"

namespace saturate::extract {

// egraph-serialize JSON, the format of extraction-gym's data sets:
//
//   {"nodes": {NODE_ID: {"op": str, "children": [NODE_ID, ...], "eclass": CLASS_ID,
//                        "cost": number}, ...},
//    "root_eclasses": [CLASS_ID, ...]}
//
// A child names one node of the child class; only that node's class matters. Classes are
// numbered in order of first appearance, nodes in file order. Other keys are ignored, except
// the optional per-node "filtered": true, Saturate's way to carry the cycle filter's list.

// Parses the text; every problem (invalid JSON, missing or mistyped fields, a child or root
// that does not exist, a negative or non-finite cost, no nodes, no roots) throws
// saturate::Error whose message starts with `source_name`.
ExtractionGraph parse_egraph_json(std::string_view text, const std::string& source_name);
// Reads and parses a file; errors name the path.
ExtractionGraph read_egraph_json(const std::string& path);

// Serializes a graph; a child is written as the first node of its class. Throws saturate::Error
// when a child class has no nodes (it cannot be named).
nlohmann::ordered_json egraph_to_json(const ExtractionGraph& graph);
void write_egraph_json(const std::string& path, const ExtractionGraph& graph);

// A result as JSON: method, costs, flags, statistics, and "choices": {CLASS_ID: NODE_ID} (the
// extraction-gym form).
nlohmann::ordered_json result_to_json(const ExtractionGraph& graph, const ExtractionResult& result);

}  // namespace saturate::extract
