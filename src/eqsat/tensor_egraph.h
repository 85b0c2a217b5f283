#pragma once

#include "egraph/egraph.h"
#include "egraph/rewrite.h"
#include "egraph/runner.h"
#include "eqsat/tensor_analysis.h"
#include "eqsat/tensor_op.h"

namespace saturate::eqsat {

// The generic e-graph instantiated for tensors: TensorOp labels, TensorAnalysis shape facts.
using TensorEGraph = egraph::EGraph<TensorOp, TensorAnalysis>;
using TensorNode = egraph::ENode<TensorOp>;
using TensorRewrite = egraph::Rewrite<TensorOp, TensorAnalysis>;
using TensorRunner = egraph::Runner<TensorOp, TensorAnalysis>;
using egraph::EClassId;

}  // namespace saturate::eqsat
