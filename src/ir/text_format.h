#pragma once

#include <string>
#include <string_view>

#include "ir/graph.h"

namespace saturate::ir {

// The S-expression text form of graphs (.sxp files):
//
//   (graph tiny
//     (node x (input :shape [8 16]))
//     (node w0 (weight :shape [16 32]))
//     (node h (matmul x w0 :activation relu))
//     (node (a b) (split h :axis 1 :sizes [16 16]))
//     (output y a))
//
// Nodes come in topological order; attributes equal to their defaults are omitted; names that
// are not plain symbols (or start with ':') are double-quoted. Writing then parsing gives back
// an equal Graph, and writing that again gives the same text.
std::string write_text(const Graph& graph);
Graph parse_text(std::string_view text, const std::string& file = "");
Graph load_text_file(const std::string& path);

}  // namespace saturate::ir
