#!/bin/sh
# Builds the TSMTTSM probe with nvcc on the GPU host and runs it: correctness
# checks, timings against cuBLAS, then the checks under compute-sanitizer.
# Logs and the CSV go to $OUT (default: $TMPDIR/tsmttsm-out).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-${TMPDIR:-/tmp}/tsmttsm-out}
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
arch=${TSMTTSM_ARCH:--gencode=arch=compute_90,code=sm_90}
bin=$out/tsmttsm_probe
log=$out/tsmttsm.log

nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv >"$log" 2>&1
date -u >>"$log"
if ! "$nvcc" -O3 -std=c++17 $arch -Xptxas -v -I "$top/src" -I "$top/kernels" \
    "$top/bench/tsmttsm_probe.cu" "$top/kernels/tsmttsm_gemm.cu" -lcublas -o "$bin" \
    >"$out/ptxas.log" 2>&1; then
    cat "$out/ptxas.log"
    exit 1
fi
"$bin" all "$out/tsmttsm.csv" >>"$log" 2>&1
status=$?
cat "$log"
if command -v compute-sanitizer >/dev/null 2>&1; then
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool (quick checks)"
        timeout "${TSMTTSM_SANITIZER_S:-120}" compute-sanitizer --tool "$tool" --print-limit 5 \
            "$bin" quick >"$out/sanitizer-$tool.log" 2>&1
        echo "exit $?"
        tail -n 4 "$out/sanitizer-$tool.log"
    done
fi
rm -f "$bin"
exit $status
