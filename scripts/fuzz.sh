#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) with clang into build-fuzz/ and runs each for
# SECONDS_PER_TARGET seconds (default 30) on a copy of its committed seed corpus
# (fuzz/corpus/<target>; new inputs go to build-fuzz/corpus/<target>, the committed corpus is
# never changed). Exits non-zero on any finding: a crash, a sanitizer report, an exception other
# than saturate::Error, a hang past 10 s or more than 2 GiB of memory. Reproducers are written
# to build-fuzz/findings/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
# clang, and libFuzzer's runtime (Debian ships it in libclang-rt-14-dev, not with clang).
SATURATE_EXTRA_APT_PACKAGES="clang libclang-rt-14-dev" bash scripts/setup.sh

build_dir=build-fuzz
source scripts/compiler_cache.sh
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DSATURATE_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DSATURATE_WERROR=ON "${compiler_cache[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target fuzz_targets

# Target and the longest input it is given (bytes): text formats are small, ONNX seeds are
# whole models.
targets=(fuzz_sxp:32768 fuzz_rules:32768 fuzz_pmb:16384 fuzz_egraph_json:65536
         fuzz_onnx_import:131072)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for entry in "${targets[@]}"; do
  target=${entry%%:*}
  max_len=${entry##*:}
  name=${target#fuzz_}
  corpus="$build_dir/corpus/$name"
  findings="$build_dir/findings/$name"
  mkdir -p "$corpus" "$findings"
  cp -r fuzz/corpus/"$name"/. "$corpus"/
  log="$build_dir/fuzz-$name.log"
  status=0
  "$build_dir/bin/$target" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -max_len="$max_len" -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1 ||
    status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  if [ "$status" -eq 0 ]; then
    echo "fuzz: $target: ${runs:-?} executions in ${time:-?} s, no findings"
  else
    echo "fuzz: $target: FINDING (exit $status) after ${runs:-?} executions; log $log:"
    grep -E "ERROR|runtime error|SUMMARY|Test unit written|terminate called|what\(\)" "$log" |
      head -20 || true
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in: ${failed[*]}"
  exit 1
fi
echo "fuzz: no findings"
