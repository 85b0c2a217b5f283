#pragma once

// `--target`: the runtime the optimized ONNX model is written for. With onnxruntime the
// optimizer may fuse into ONNX Runtime's contrib kernels (com.microsoft), through the shipped
// PyPM library rules/pypm/onnxruntime.py (compiled by the build); with onnx the output uses
// standard operators only.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eqsat/optimizer.h"
#include "ir/op_kind.h"
#include "pm/core.h"

namespace saturate::driver {

inline constexpr const char* kTargetOnnxruntime = "onnxruntime";
inline constexpr const char* kTargetOnnx = "onnx";
inline const std::vector<std::string> kTargets{kTargetOnnxruntime, kTargetOnnx};

// The target when none is given: onnxruntime for an ONNX input, else onnx (a bundled model or
// a .sxp graph is not deployed through ONNX Runtime).
std::string default_target(bool onnx_input);

// The compiled fusion libraries for ONNX Runtime, in shipped_pypm_dir() ($SATURATE_PYPM_DIR, the
// install prefix's, else the build's rules/): onnxruntime.pmb, and onnxruntime_matmul.pmb apart
// (FusedMatMul: greedy rewriting in one library would fold attention's scores product first).
std::vector<std::string> onnxruntime_fusion_paths();

// The libraries a target adds to the e-graph, each a module of its own.
using FusionLibraries = std::vector<std::shared_ptr<const pm::Module>>;

// The IR operators that stand for ONNX Runtime's own kernels (what the library fuses into).
inline constexpr ir::OpKind kContribOperators[] = {
    ir::OpKind::MultiHeadAttention, ir::OpKind::QkvAttention, ir::OpKind::RMSNorm,
    ir::OpKind::BiasGelu,           ir::OpKind::FastGelu,     ir::OpKind::QuickGelu,
    ir::OpKind::SkipLayerNorm,      ir::OpKind::SkipRMSNorm,  ir::OpKind::RotaryEmbedding,
    ir::OpKind::FusedConv,          ir::OpKind::FusedMatMul};

// The fusions a target adds to the e-graph (none for onnx), loaded and checked; throws
// saturate::Error naming the file when a library is missing or malformed. `allowed` (IR names
// from kContribOperators, or "none"; empty: all) keeps only the rules whose replacement uses
// allowed operators, so that one fusion can be turned off or measured alone.
FusionLibraries target_fusions(const std::string& target,
                               const std::vector<std::string>& allowed = {});

// How many nodes of each ONNX Runtime contrib operator `optimized` holds beyond those `original`
// already held, by IR name: the fusion counts of a report (import reads opset 20's
// Gelu(approximate="tanh") as FastGelu, which no rule fused).
std::map<std::string, size_t> fused_operator_counts(const ir::Graph& original,
                                                    const ir::Graph& optimized);

// Adds a module's rules to equality saturation, non-destructively.
void add_pypm_rules(eqsat::OptimizeOptions& settings, std::shared_ptr<const pm::Module> module);

}  // namespace saturate::driver
