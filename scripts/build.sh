#!/usr/bin/env bash
# Configures and builds Saturate into build/ (or $BUILD_DIR); extra arguments go to CMake.
# Warnings are errors. SATURATE_SANITIZE=1 builds with AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
sanitize=${SATURATE_SANITIZE:-0}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATURATE_WERROR=ON \
  -DSATURATE_SANITIZE=$([ "$sanitize" = 1 ] && echo ON || echo OFF) "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
