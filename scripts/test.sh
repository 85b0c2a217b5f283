#!/usr/bin/env bash
# All tests on a fresh machine: install, build (warnings are errors), run the C++ tests through
# CTest and the Python tests through pytest, both on every core (SATURATE_TEST_JOBS=N to change).
# SATURATE_SANITIZE=1 does the same in build-sanitize/ under AddressSanitizer and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${SATURATE_SANITIZE:-0}" = 1 ]; then
  export BUILD_DIR=${BUILD_DIR:-build-sanitize}
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
export BUILD_DIR=${BUILD_DIR:-build}
bash scripts/build.sh
jobs=${SATURATE_TEST_JOBS:-$(nproc)}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$jobs"
SATURATE_BIN="$PWD/$BUILD_DIR/bin/saturate" python3 -m pytest -q -n "$jobs" tests/python
