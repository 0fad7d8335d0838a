#!/bin/sh
# The host-data path on the GPU host, in a built tree (`make -j16`
# done; run from the build directory):
#   1. its tests: slicing, profile, residency through the shim (make check)
#   2. tsshim-calibrate -> $OUT/profile
#   3. the end-to-end benchmark with that profile -> $OUT/e2e.csv
# Logs go to $OUT (default ./datapath-out); a short table comes last.
set -u
out=${OUT:-$(pwd)/datapath-out}
mkdir -p "$out" || exit 1
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(pwd)
[ -f "$build/.libs/libtsshim.so" ] || { echo "$0: run it from a built tree (no .libs/libtsshim.so here)" >&2; exit 1; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
date -u '+%Y-%m-%d %H:%M UTC' >>"$out/gpu.txt"

make check TESTS="tests/test_slicing tests/test_profile tests/residency_gpu.sh" >"$out/check.txt" 2>&1
check=$?
cp tests/test_slicing.log tests/test_profile.log tests/residency_gpu.log "$out/" 2>/dev/null

./tools/tsshim-calibrate -o "$out/profile" --plugin "$build/.libs/libtsshim-cuda.so" >"$out/calibrate.txt" 2>&1
calibrate=$?

BENCH=$build/bench/bench_e2e TSSHIM_LIB=$build/.libs/libtsshim.so \
  sh "$src/bench/run-e2e.sh" "$out" "$out/profile" >"$out/e2e.txt" 2>&1
bench=$?

echo "== device"; cat "$out/gpu.txt"
echo "== tests (make check: exit $check)"
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS)' "$out/check.txt" | sed 's/^\(.\{150\}\).*/\1.../'
echo "== calibration (exit $calibrate)"; cat "$out/calibrate.txt"
echo "== end to end (exit $bench)"; cat "$out/e2e.txt"
