#!/usr/bin/env bash
# Configures and builds Saturate into build/ (or $BUILD_DIR); extra arguments go to CMake.
# Warnings are errors. SATURATE_SANITIZE=1 builds with AddressSanitizer and UBSan.
# SATURATE_BUILD_TARGETS="a b" builds only those targets (scripts/main.sh: the program alone).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
sanitize=${SATURATE_SANITIZE:-0}
if [ "$sanitize" = 1 ]; then
  # -O1 without debug info: sanitizer builds compile much faster and still run the tests quickly.
  build_type=(-DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DSATURATE_SANITIZE=ON)
else
  build_type=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATURATE_SANITIZE=OFF)
fi
source scripts/compiler_cache.sh
cmake -S . -B "$build_dir" -G Ninja "${build_type[@]}" "${compiler_cache[@]}" -DSATURATE_WERROR=ON "$@" >/dev/null
read -r -a targets <<<"${SATURATE_BUILD_TARGETS:-all}"
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
