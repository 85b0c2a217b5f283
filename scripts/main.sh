#!/usr/bin/env bash
# The main job on a fresh machine: install, build the program (not the tests), then optimize an
# ONNX model as a user would: fused into ONNX Runtime's kernels where measured faster, the
# latency check, and verification that the output computes the same numbers.
#   bash scripts/main.sh [MODEL.onnx]   (default: a small BERT exported by PyTorch)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
SATURATE_BUILD_TARGETS="saturate saturate_pypm_rules" bash scripts/build.sh
model=${1:-tests/fixtures/exporters/bert_eager.torchscript.onnx}
name=$(basename "$model" .onnx)
mkdir -p out
build/bin/saturate optimize "$model" --verify -o "out/$name.opt.onnx" --json "out/$name.report.json"
echo "main: wrote out/$name.opt.onnx and out/$name.report.json"
