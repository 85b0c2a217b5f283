#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then load, summarize and run a bundled model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
model=${1:-squeezenet}
build/bin/saturate show "$model"
echo
build/bin/saturate run "$model"
