#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then optimize a bundled model by equality
# saturation and ILP extraction, checking that the optimized graph computes the same outputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
model=${1:-squeezenet}
mkdir -p out
build/bin/saturate optimize "$model" --verify --ilp-time-limit 60 \
  -o "out/$model.opt.sxp" --json "out/$model.report.json" --dot "out/$model.opt.dot"
