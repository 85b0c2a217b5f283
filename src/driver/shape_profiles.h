#pragma once

// Shape profiles: named concrete bindings of a model's symbolic dimensions (ir/symbolic_dim.h),
// at which costs, extraction and the latency check run (weighted when there are several) and
// verification runs, together with adversarial sizes chosen to expose shape bugs. The written
// model keeps its symbols. On the command line: `--profile batch=1,sequence=128` or
// `--profile batch=8,sequence=512@0.5` (repeatable).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cost/cost_model.h"
#include "cost/profiled_cost_model.h"
#include "ir/graph.h"
#include "ir/symbolic_dim.h"

namespace saturate::driver {

struct ShapeProfile {
  std::string name;         // the text given ("batch=8,sequence=512"), "default", "odd-7", ...
  ir::SymbolBinding sizes;  // symbol name -> size
  double weight = 1;        // relative: ProfiledCostModel normalizes the weights to sum to 1
};

// A size no profile gives: "batch 1, other lengths 128" (cache lengths included).
inline constexpr int64_t kDefaultBatchSize = 1;
inline constexpr int64_t kDefaultLength = 128;
// kDefaultBatchSize for a symbol whose name contains "batch" (any case), else kDefaultLength;
// never above what the model accepts (ir::assumptions: a length that must fit a table), never
// below the symbol's lower bound. A profile or binding that breaks an assumption is refused
// (complete_profiles) or left out (adversarial_bindings).
int64_t default_symbol_size(std::string_view symbol);

// Reads `NAME=SIZE,NAME=SIZE[@WEIGHT]` (spaces around items allowed). The profile's name is the
// text before `@`. Throws saturate::Error on malformed text, a size that is not a non-negative
// integer, a name given twice, or a weight that is not a positive number. Names are checked
// against a model by complete_profiles.
ShapeProfile parse_shape_profile(std::string_view text);

// The names of the symbols the graph's value types and integer attributes use, sorted.
std::vector<std::string> graph_symbols(const ir::Graph& graph);

// The profiles a run of `graph` uses: each given profile with every symbol it does not name at
// its default (default_symbol_size), or, when none is given, one profile named "default" with
// every symbol at its default. Throws saturate::Error naming the profile when it names a symbol
// the model does not have (listing those it has), gives a size below a symbol's lower bound, is
// given twice, or sizes a value of the graph with a dimension that is negative or not an integer
// (`(sequence)/2` at an odd sequence).
std::vector<ShapeProfile> complete_profiles(const ir::Graph& graph,
                                            std::vector<ShapeProfile> given = {});
// parse_shape_profile on each text, then complete_profiles.
std::vector<ShapeProfile> parse_shape_profiles(const ir::Graph& graph,
                                               const std::vector<std::string>& texts);

// Extra bindings for verification, chosen to expose shape bugs that typical sizes hide (weight
// 1 each): "ones", every symbol at its lower bound (1; 0 for a cache length whose lower bound is
// 0: an empty cache); "odd-7", every symbol 7; "odd-37", lengths 37 with batch 3. A binding that
// some value of the graph cannot take (a dimension not an integer or negative there) or that
// equals one of `profiles` or an earlier one is left out; none for a graph without symbols.
std::vector<ShapeProfile> adversarial_bindings(const ir::Graph& graph,
                                               const std::vector<ShapeProfile>& profiles);

// The dims at a profile; throws saturate::Error when the profile leaves a symbol unbound.
ir::Dims concrete_dims(const ir::Dims& dims, const ShapeProfile& profile);

// The graph at a profile: the same nodes, names and outputs with every dimension and symbolic
// integer attribute bound (cost::bind_config), shape-checked again, so that the interpreter and
// the executors can run it. Throws saturate::Error naming the profile and the node when the
// concrete graph is invalid, e.g. an empty cache (a size 0, which a concrete IR shape cannot
// have).
ir::Graph concrete_graph(const ir::Graph& graph, const ShapeProfile& profile);

// The bindings and weights a cost::ProfiledCostModel takes.
std::vector<cost::WeightedBinding> weighted_bindings(const std::vector<ShapeProfile>& profiles);
// `model` priced at the profiles (a cost::ProfiledCostModel) when the graph has symbols; the
// model itself otherwise, so that reports on static models do not change.
std::unique_ptr<cost::CostModel> price_at_profiles(std::unique_ptr<cost::CostModel> model,
                                                   const ir::Graph& graph,
                                                   const std::vector<ShapeProfile>& profiles);

// "batch=8,sequence=512@0.5" (the weight only when it is not 1): what parse_shape_profile reads.
std::string to_string(const ShapeProfile& profile);
// {"name": "batch=8,sequence=512", "sizes": {"batch": 8, "sequence": 512}, "weight": 0.5}.
nlohmann::ordered_json to_json(const ShapeProfile& profile);
nlohmann::ordered_json to_json(const std::vector<ShapeProfile>& profiles);

}  // namespace saturate::driver
