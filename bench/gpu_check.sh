#!/usr/bin/env bash
# GPU check of the measured cost model's cuDNN/cuBLAS timer (docs/COST_MODEL.md, "GPU timing"):
# builds only what it needs with -DSATURATE_CUDA=ON, runs the cost_cuda tests (which must not
# skip), then times every distinct operator configuration of the 7 paper models and compares
# each original graph's cost under the measured prices with the analytic model.
#
#   bench/gpu_check.sh [OUT_DIR]     (default: $OUT if set, else bench/results/gpu_check)
#
# Writes OUT_DIR/gpu_cost_check.{json,md} and OUT_DIR/cost_cuda_test.log. Exits non-zero with a
# message when no GPU is visible or anything fails. About 1-3 minutes on a 16-core GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir=${1:-${OUT:-bench/results/gpu_check}}
build_dir=${BUILD_DIR:-build-gpu}

fail() {
  echo "gpu_check: $*" >&2
  exit 1
}

# Fail before the build when the driver says there is no GPU (the programs check again).
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L 2>/dev/null | grep -q '^GPU' || fail "no CUDA device visible (nvidia-smi -L lists none)"
  nvidia-smi -L
fi

start=$SECONDS
echo "== configure and build ($build_dir)"
# RelWithDebInfo (-O2) as scripts/build.sh; warnings do not stop a GPU check (CI checks them).
mkdir -p "$build_dir"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATURATE_CUDA=ON \
  -DSATURATE_PYTHON=OFF -DSATURATE_WERROR=OFF >"$build_dir/configure.log" 2>&1 ||
  { tail -30 "$build_dir/configure.log"; fail "configure failed (log: $build_dir/configure.log)"; }
grep 'Saturate GPU timing' "$build_dir/configure.log" || true
cmake --build "$build_dir" -j "$(nproc)" --target cost_cuda_test gpu_cost_check ||
  fail "build failed"
echo "built in $((SECONDS - start)) s"

mkdir -p "$out_dir"
echo "== cost_cuda tests"
set +e
"$build_dir/bin/cost_cuda_test" 2>&1 | tee "$out_dir/cost_cuda_test.log"
test_status=${PIPESTATUS[0]}
set -e
if grep -q 'no CUDA device visible' "$out_dir/cost_cuda_test.log"; then
  fail "no CUDA device visible: the timing tests skipped"
fi
[ "$test_status" = 0 ] || fail "cost_cuda_test failed (log: $out_dir/cost_cuda_test.log)"

echo "== timing the paper models' operator configurations"
set +e
"$build_dir/bin/gpu_cost_check" --out "$out_dir" \
  bert nasrnn nasnet_a resnext50 inception_v3 squeezenet vgg19
check_status=$?
set -e
[ "$check_status" = 2 ] && fail "no CUDA device visible"
[ "$check_status" = 0 ] || fail "gpu_cost_check failed (exit $check_status)"
echo "gpu_check: done in $((SECONDS - start)) s; results in $out_dir"
