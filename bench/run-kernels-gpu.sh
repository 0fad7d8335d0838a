#!/bin/sh
# Builds the kernel tests, the tuning program and the kernel benchmark with
# nvcc and gcc alone (the GPU host has no libtool), then runs, in order: the
# kernel tests, the tuner (writing a fresh kernels/tuning_sm<NN>.c), the
# benchmark linked with that fresh table, and compute-sanitizer on a subset
# of the tests.  Logs, the new table and the CSV go to $OUT (default
# ./kernels-out).  Usage: bench/run-kernels-gpu.sh [jobs]
# TSK_BENCH_CLASS (tsm2, ism2 or tsmttsm) limits the benchmark to one class;
# TSK_TUNE=0 skips the tuner (the benchmark then uses the committed table);
# TSK_NCU (below) profiles chosen kernels with Nsight Compute.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/kernels-out}
jobs=${1:-16}
build=$(mktemp -d)
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
arch=${TSK_ARCH:--gencode=arch=compute_90,code=sm_90}
inc="-I$top/src -I$top/kernels -I$top/cuda -I$top/tests -I$top/bench"
cuda=$(dirname "$(dirname "$(command -v "$nvcc")")")
libs="-L$cuda/lib64 -Wl,-rpath,$cuda/lib64 -lcublas -lcudart -lstdc++ -lm"

nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
date -u >>"$out/gpu.txt"

# Kernel objects in parallel, each timed (the build-time budget).
for f in kernels/tsm2_gemm kernels/tsm2_dmma_gemm kernels/ism2_gemm kernels/ism2_dmma_gemm kernels/tsmttsm_gemm \
    kernels/tsmttsm_dmma_gemm bench/fma_peak; do
    b=$(basename $f)
    ( s=$(date +%s); "$nvcc" -O3 -std=c++17 $arch -Xptxas -v $inc -c "$top/$f.cu" -o "$build/$b.o" \
        >"$build/$b.ptxas" 2>&1 || echo "nvcc $f FAILED"; echo "nvcc $f: $(( $(date +%s) - s )) s" ) &
done
for f in cuda/kernel_dispatch tests/test_kernels bench/bench_kernels tools/tsshim_tune; do
    gcc -std=c11 -O2 -Wall $inc -I"$cuda/include" -c "$top/$f.c" -o "$build/$(basename $f).o" || echo "gcc $f FAILED"
done
gcc -std=c11 -O2 $inc -I"$cuda/include" -c "$top/kernels/tuning_sm90.c" -o "$build/tuning_old.o"
wait
cat "$build"/*.ptxas | grep -E 'spill|error' | sort | uniq -c >"$out/ptxas.txt"
k="$build/tsm2_gemm.o $build/ism2_gemm.o $build/ism2_dmma_gemm.o $build/tsmttsm_gemm.o $build/tsmttsm_dmma_gemm.o"
k="$k $build/tsm2_dmma_gemm.o $build/kernel_dispatch.o"
gcc -o "$build/test_kernels" "$build/test_kernels.o" $k "$build/tuning_old.o" $libs
gcc -o "$build/tsshim_tune" "$build/tsshim_tune.o" $k "$build/tuning_old.o" $libs

echo "== kernel tests"
timeout "${TSK_TEST_S:-100}" "$build/test_kernels" >"$out/test_kernels.log" 2>&1
echo "exit $?: $(grep -c '^ok' "$out/test_kernels.log") ok, $(grep -c '^not ok' "$out/test_kernels.log") not ok"
grep -E '^not ok|^# ' "$out/test_kernels.log" | head -30

sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
if [ "${TSK_TUNE:-1}" != 0 ]; then
    echo "== tuning"
    timeout "${TSK_TUNE_S:-100}" "$build/tsshim_tune" "$out/tuning_sm$sm.c" 2>"$out/tune.log"
    echo "exit $?"
    grep -c cublas "$out/tune.log"
fi

echo "== benchmark"
table="$out/tuning_sm$sm.c"
[ -s "$table" ] || table="$top/kernels/tuning_sm90.c"
gcc -std=c11 -O2 $inc -I"$cuda/include" -c "$table" -o "$build/tuning_new.o"
gcc -o "$build/bench_kernels" "$build/bench_kernels.o" "$build/fma_peak.o" $k "$build/tuning_new.o" $libs
timeout "${TSK_BENCH_S:-120}" "$build/bench_kernels" "$out/bench_kernels.csv" ${TSK_BENCH_CLASS:-} \
    >"$out/bench_kernels.txt" 2>&1
echo "exit $?"
cat "$out/bench_kernels.txt"

if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck synccheck; do
        TSK_TEST_ONLY=${TSK_SANITIZE_ONLY:-tsm2_c_w8} timeout 40 compute-sanitizer --tool $tool --print-limit 5 \
            "$build/test_kernels" >"$build/san-$tool.log" 2>&1
        echo "== compute-sanitizer $tool: exit $?"; tail -n 3 "$build/san-$tool.log"
    done
fi
# TSK_NCU="REGEX[;REGEX...]": Nsight Compute's speed-of-light, occupancy,
# launch, memory, scheduler and warp-stall sections for the first
# TSK_NCU_COUNT (default 1) launches of the kernels matching each REGEX in
# the benchmark, one report per REGEX (ncu-1.txt, ...); the benchmark stops
# after them.  TSK_NCU_METRICS adds raw metrics (comma-separated).
if [ -n "${TSK_NCU:-}" ] && command -v ncu >/dev/null 2>&1; then
    n=0
    echo "$TSK_NCU" | tr ';' '\n' | while IFS= read -r re; do
        n=$((n + 1))
        timeout 150 ncu --kernel-name-base demangled -k "regex:$re" --launch-count "${TSK_NCU_COUNT:-1}" --kill 1 \
            --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
            --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
            ${TSK_NCU_METRICS:+--metrics "$TSK_NCU_METRICS"} \
            "$build/bench_kernels" "$build/ncu.csv" ${TSK_BENCH_CLASS:-} >"$out/ncu-$n.txt" 2>&1
        echo "== ncu $re: exit $? ($out/ncu-$n.txt)"
    done
fi
rm -rf "$build"
