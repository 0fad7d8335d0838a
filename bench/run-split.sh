#!/bin/sh
# One call on every GPU of the host (src/multigpu/split_*.c): each case, by default
# bench_e2e's split_* cases (a Gram matrix A^T B of two 2^27 x 16 double
# blocks, 32 GiB, and a square double GEMM of 32768, pageable and pinned), on
# host memory, run
#   plain     the CPU BLAS alone, one call (half a minute for the square GEMM;
#             a case named X_pinned takes X's run when X ran before it)
#   one GPU   TSSHIM_MODE=gpu TSSHIM_SPLIT=0: the whole call on device 0
#   all GPUs  TSSHIM_MODE=gpu TSSHIM_SPLIT=1: split among every visible device
# The GPU runs make one warm-up call (each device's start) and E2E_BATCHES
# (default 2) timed ones; the best counts.  The operand cache is off
# (TSSHIM_CACHE=0): every call moves its operands, as a program's one call
# on new data does (split parts never use the cache).  The GPU runs log at
# TSSHIM_VERBOSE=3 (the pipeline's phases per call and part) into
# OUTDIR/split-logs.  bench_e2e checks every result.
# Prints and writes OUTDIR/split-GPU-Nx-DATE.csv and .txt: times, the ratios
# against the CPU BLAS and against one GPU, the scaling efficiency (one GPU's
# time over N times all GPUs' time), and each GPU run's fraction of its
# roofline: max(bytes in / (G x h2d), bytes out / (G x d2h), flops / (G x
# peak)) for G devices, the call's bytes counted once (a column block of a
# regular GEMM needs all of A on every device: the host sends each device
# its share of A, and the devices copy the rest among themselves).
#
# Usage: run-split.sh OUTDIR [CASE...]
#   BENCH        bench_e2e (default ./bench/bench_e2e)
#   TSSHIM_LIB   libtsshim.so (default ./.libs/libtsshim.so)
#   SPLIT_H2D_GBS, SPLIT_D2H_GBS   pinned link rates per device (default
#                55.6 and 55.4, the H200 host's in ../shared/GPU.md)
#   SPLIT_FP64_TFLOPS   a device's FP64 peak (default 67, H100/H200 SXM)
#   RUN_LIMIT    seconds per run (default 300)
set -u
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [CASE...]" >&2; exit 2; }
out=$1
shift
bench=${BENCH:-./bench/bench_e2e}
lib=${TSSHIM_LIB:-$(pwd)/.libs/libtsshim.so}
limit=${RUN_LIMIT:-300}
h2d=${SPLIT_H2D_GBS:-55.6}
d2h=${SPLIT_D2H_GBS:-55.4}
peak=${SPLIT_FP64_TFLOPS:-67}
logs=$out/split-logs
mkdir -p "$logs" || exit 1
[ -x "$bench" ] || { echo "$0: no $bench" >&2; exit 1; }
[ -f "$lib" ] || { echo "$0: no $lib" >&2; exit 1; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 1 ] || { echo "$0: no GPU (nvidia-smi -L)" >&2; exit 1; }
model=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | sed 's/^NVIDIA //; s/ /-/g')
stem=$out/split-$model-${gpus}x-$(date +%Y-%m-%d)
cases=${*:-$("$bench" --list | awk '$1 ~ /^split_/ { print $1 }')}
unset TSSHIM_MODE TSSHIM_VERBOSE TSSHIM_LOG TSSHIM_SPLIT TSSHIM_SPLIT_DEVICES TSSHIM_CACHE

# run CASE WHAT: bench_e2e's CSV line of one run (WHAT: plain, one, all).
run() {
  case $2 in
    plain) E2E_WARMUP_BATCHES=0 E2E_BATCHES=1 timeout "$limit" "$bench" "$1" ;;
    *)
      split=0
      [ "$2" = all ] && split=1
      E2E_BATCHES=${E2E_BATCHES:-2} TSSHIM_MODE=gpu TSSHIM_SPLIT=$split TSSHIM_CACHE=0 TSSHIM_VERBOSE=3 \
        TSSHIM_LOG="$logs/$1.$2.log" timeout "$limit" env LD_PRELOAD="$lib" "$bench" "$1" ;;
  esac
}

# devices CASE WHAT: the devices that ran work, from the exit report.
devices() {
  awk '$1 == "tsshim:" && $2 == "device" && $4 ~ /^runs=[1-9]/ { n++ } END { print n + 0 }' "$logs/$1.$2.log" 2>/dev/null
}

echo "case,class,prec,m,n,k,gpus,bytes_in,bytes_out,flops,plain_s,one_gpu_s,all_gpus_s,devices_used,all_vs_plain,all_vs_one,efficiency,roofline_one,roofline_all,check" >"$stem.csv"
for s in $cases; do
  # The CPU BLAS runs a pinned case as its pageable twin: that run's time
  # serves both when the twin ran first (the square GEMM takes it a minute).
  twin=$logs/${s%_pinned}.plain.csv
  if [ "$s" != "${s%_pinned}" ] && [ -s "$twin" ]; then
    p=$(cat "$twin")
  else
    p=$(run "$s" plain)
    echo "$p" >"$logs/$s.plain.csv"
  fi
  o=$(run "$s" one) a=$(run "$s" all)
  if [ -z "$p" ] || [ -z "$o" ] || [ -z "$a" ]; then
    echo "$s: a run failed (logs in $logs)" >&2
    continue
  fi
  printf '%s\n%s\n%s\n' "$p" "$o" "$a" | awk -F, -v g="$gpus" -v used="$(devices "$s" all)" -v h2d="$h2d" \
    -v d2h="$d2h" -v peak="$peak" '
    { t[NR] = $9; chk = chk ($14 == "ok" ? "" : " " $14); head = $1 "," $2 "," $4 "," $5 "," $6 "," $7
      bin = $10; bout = $11; fl = $12 }
    function bound(devs) {
      b = bin / (devs * h2d * 1e9); o = bout / (devs * d2h * 1e9); c = fl / (devs * peak * 1e12)
      return b > o ? (b > c ? b : c) : (o > c ? o : c)
    }
    END {
      printf "%s,%d,%.0f,%.0f,%.0f,%.6g,%.6g,%.6g,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", head, g, bin, bout, fl,
             t[1], t[2], t[3], used, t[1] / t[3], t[2] / t[3], t[2] / (g * t[3]), bound(1) / t[2],
             bound(g) / t[3], chk == "" ? "ok" : "FAIL"
    }' >>"$stem.csv"
done

{
  echo "== one call split across $gpus x $model ($(date +%Y-%m-%d)), host memory, TSSHIM_MODE=gpu"
  awk -F, 'NR == 1 { next }
    BEGIN { printf "%-22s %9s %9s %9s %6s %9s %8s %6s %8s %8s %5s\n", "case", "plain s", "1 GPU s", "all s",
            "used", "x plain", "x 1 GPU", "eff", "roof 1", "roof all", "check" }
    { printf "%-22s %9.3f %9.3f %9.3f %6d %9.2f %8.2f %5.0f%% %7.0f%% %7.0f%% %5s\n", $1, $11, $12, $13, $14, $15,
             $16, $17 * 100, $18 * 100, $19 * 100, $20 }' "$stem.csv"
  echo "(x plain: the CPU BLAS's time over all GPUs'; x 1 GPU: one GPU's over all GPUs'; eff: that over $gpus;"
  echo " roof: the run's fraction of its roofline at pinned h2d $h2d / d2h $d2h GB/s and $peak TFLOP/s per device;"
  echo " used: devices that ran work in the split run; csv: $stem.csv)"
  echo "== GPU links (nvidia-smi topo -m)"
  nvidia-smi topo -m 2>&1
} | tee "$stem.txt"
! grep -q ',FAIL$' "$stem.csv"
