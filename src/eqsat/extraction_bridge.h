#pragma once

#include <vector>

#include "cost/cost_model.h"
#include "eqsat/graph_conversion.h"
#include "eqsat/tensor_egraph.h"
#include "extract/extraction_graph.h"
#include "extract/extraction_result.h"

namespace saturate::eqsat {

// A tensor e-graph as the extractors see it: the classes reachable from the root (attribute
// classes left out: they hold one free leaf each and are read back from the analysis), each
// visible node priced by the cost model. Filtered nodes are left out too, except in a class
// they fill entirely: there they stay, marked filtered, at cost 0, so the class has a name in
// egraph-serialize JSON.
struct ExtractionView {
  extract::ExtractionGraph graph;
  std::vector<TensorNode> nodes;  // by extraction node index
  std::vector<EClassId> classes;  // by extraction class index
};

// Cost of one e-node: zero for leaves, noops and split projections, and for operators whose
// tensor inputs are all known at compile time (folded); otherwise the cost model's price of the
// IR operator configuration.
double node_cost(const TensorEGraph& egraph, const TensorNode& node, const cost::CostModel& model);

ExtractionView make_extraction_view(const TensorEGraph& egraph, EClassId root,
                                    const cost::CostModel& model);

// The extractor's choice, as e-nodes per e-class.
Choice choice_of(const ExtractionView& view, const extract::ExtractionResult& result);

}  // namespace saturate::eqsat
