#pragma once

#include <string>

#include "ir/graph.h"

namespace saturate::cli {

// Resolves what a user names on the command line: a bundled model name ("bert"), or a path to
// a graph in text form (".sxp"). Throws saturate::Error listing the known models otherwise.
ir::Graph load_graph(const std::string& spec, bool reduced);

}  // namespace saturate::cli
