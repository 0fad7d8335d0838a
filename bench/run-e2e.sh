#!/bin/sh
# End-to-end benchmark: every shape of bench_e2e run as
#   (a) the CPU BLAS alone (device shapes: cuBLAS called directly),
#   (b) under libtsshim.so in auto mode, (c) under libtsshim.so, TSSHIM_MODE=gpu;
# prints times, speedups against (a), auto against the faster of (a) and (c),
# and each offloaded run's fraction of the PCIe bound
#   max(bytes in / pinned h2d rate, bytes out / pinned d2h rate) / time.
# Writes OUTDIR/e2e.csv and the shim's reports to OUTDIR/e2e-logs/; the
# forced-GPU runs log at TSSHIM_VERBOSE=3 (a trace line and a pipeline phase
# line per call; not the small shapes, whose timing that would change), and
# each shape's last phase line is printed after the table.  Auto runs log at
# TSSHIM_VERBOSE=1 to tell where the calls ran, except the small shapes:
# counting would be most of their cost, so they are timed at verbosity 0
# (as a program runs them) and a second run tells where.  E2E_ROUNDS
# (default 2) repeats the three runs of a shape in turn and keeps each
# one's fastest: OpenBLAS's time varies from process to process more than
# from batch to batch.  Each run is cut off after RUN_LIMIT seconds
# (default 60) so one stuck shape cannot eat the whole run; the whole list
# takes about 5 minutes on the GPU host.  Auto runs warm up for
# E2E_WARMUP_S seconds (default 2) of calls before the timed batches: the
# steady state of a long-running program, since the shim keeps a process's
# first calls on the CPU until their forgone savings pay for starting the
# GPU (the other runs warm up with one batch).
#
# Usage: run-e2e.sh OUTDIR [PROFILE] [SHAPE...]
#   BENCH     bench_e2e program (default ./bench/bench_e2e)
#   TSSHIM_LIB  libtsshim.so   (default ./.libs/libtsshim.so)
# PROFILE (tsshim-calibrate's) gives the pinned rates and is the cost model
# the auto runs use; without it the built-in figures apply.
set -u
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [PROFILE] [SHAPE...]" >&2; exit 2; }
out=$1
shift
profile=
if [ $# -ge 1 ]; then profile=$1; shift; fi
bench=${BENCH:-./bench/bench_e2e}
limit=${RUN_LIMIT:-60}
rounds=${E2E_ROUNDS:-2}
started=$(date +%s)
lib=${TSSHIM_LIB:-$(pwd)/.libs/libtsshim.so}
logs=$out/e2e-logs
mkdir -p "$logs" || exit 1
[ -x "$bench" ] || { echo "$0: no $bench" >&2; exit 1; }
[ -f "$lib" ] || { echo "$0: no $lib" >&2; exit 1; }

h2d=55.6
d2h=55.4
if [ -n "$profile" ] && [ -r "$profile" ]; then
  TSSHIM_PROFILE=$profile
  export TSSHIM_PROFILE
  h2d=$(awk '$1 == "h2d_pinned_gbs" { print $2 }' "$profile")
  d2h=$(awk '$1 == "d2h_pinned_gbs" { print $2 }' "$profile")
fi
unset TSSHIM_MODE TSSHIM_VERBOSE TSSHIM_LOG

shapes=$*
[ -n "$shapes" ] || shapes=$("$bench" --list)

# One run: prints bench_e2e's CSV line then ",where" (gpu when the shim's
# report counts an offloaded call, cpu otherwise, "-" without the shim).
run() { # shape mode
  case $2 in
    plain)
      case $1 in
        *_device) line=$(timeout "$limit" "$bench" "$1" --direct) ;;
        *) line=$(timeout "$limit" "$bench" "$1") ;;
      esac
      where=- ;;
    *)
      log=$logs/$1.$2.log
      rm -f "$log"
      mode=auto verbose=1 warm=${E2E_WARMUP_S:-2}
      if [ "$2" = gpu ]; then
        mode=gpu warm=0
        case $1 in small_*) ;; *) verbose=3 ;; esac
      fi
      case $2.$1 in
        auto.small_*)
          line=$(TSSHIM_MODE=auto LD_PRELOAD=$lib timeout "$limit" "$bench" "$1")
          TSSHIM_MODE=auto TSSHIM_VERBOSE=1 TSSHIM_LOG=$log LD_PRELOAD=$lib timeout "$limit" "$bench" "$1" >/dev/null ;;
        *) line=$(E2E_WARMUP_S=$warm TSSHIM_MODE=$mode TSSHIM_VERBOSE=$verbose TSSHIM_LOG=$log LD_PRELOAD=$lib \
                    timeout "$limit" "$bench" "$1") ;;
      esac
      where=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^offloaded=/) { split($i, v, "="); n += v[2] } }
                   END { print (n > 0 ? "gpu" : "cpu") }' "$log" 2>/dev/null) ;;
  esac
  [ -n "$line" ] && echo "$line,${where:-cpu}"
}

csv=$out/e2e.csv
echo "shape,prec,m,n,k,memory,bytes_in,bytes_out,openblas_s,auto_s,gpu_s,auto_ran_on,speedup_auto,speedup_gpu,auto_vs_best,pcie_fraction_auto,pcie_fraction_gpu" >"$csv"
# The fastest of the lines on stdin (field 7 is the time per call).
fastest() { awk -F, 'NF > 7 && (best == "" || $7 < t) { best = $0; t = $7 } END { print best }'; }

for s in $shapes; do
  a= b= c=
  r=0
  while [ "$r" -lt "$rounds" ]; do
    a=$(printf '%s\n%s\n' "$a" "$(run "$s" plain)" | fastest)
    b=$(printf '%s\n%s\n' "$b" "$(run "$s" auto)" | fastest)
    c=$(printf '%s\n%s\n' "$c" "$(run "$s" gpu)" | fastest)
    r=$((r + 1))
  done
  if [ -z "$a" ] || [ -z "$b" ] || [ -z "$c" ]; then
    echo "$s: a run failed" >&2
    continue
  fi
  printf '%s\n%s\n%s\n' "$a" "$b" "$c" | awk -F, -v h2d="$h2d" -v d2h="$d2h" '
    { t[NR] = $7; w[NR] = $11; name = $1; head = $1 "," $2 "," $3 "," $4 "," $5 "," $6; bin = $8; bout = $9 }
    function frac(sec, where) {
      bound = bin / (h2d * 1e9); o = bout / (d2h * 1e9); if (o > bound) bound = o
      return (where == "gpu" && bound > 0) ? sprintf("%.2f", bound / sec) : "-"
    }
    END {
      best = t[1] < t[3] ? t[1] : t[3]
      printf "%s,%s,%s,%.6g,%.6g,%.6g,%s,%.3f,%.3f,%.3f,%s,%s\n", head, bin, bout, t[1], t[2], t[3], w[2],
             t[1] / t[2], t[1] / t[3], t[2] / best, frac(t[2], w[2]), frac(t[3], w[3])
    }' >>"$csv"
done

# The table: times in ms (ns per call below 10 us), speedups against (a).
awk -F, 'NR == 1 { next }
  function tm(s) { return s < 1e-5 ? sprintf("%.0fns", s * 1e9) : sprintf("%.2f", s * 1e3) }
  BEGIN { printf "%-22s %10s %10s %10s %5s %7s %7s %8s %6s %6s\n", "shape", "openblas", "auto", "gpu", "auto@",
          "x auto", "x gpu", "auto/best", "pcie_a", "pcie_g" }
  { printf "%-22s %10s %10s %10s %5s %7.2f %7.2f %8.2f %6s %6s\n", $1, tm($9), tm($10), tm($11), $12, $13, $14, $15, $16, $17 }' "$csv"
echo "(times in ms unless marked; device shapes: openblas column = cuBLAS called directly;"
echo " pcie_a, pcie_g: each offloaded call's fraction of the PCIe bound, pinned h2d $h2d / d2h $d2h GB/s; csv: $csv)"
echo "== pipeline phases of the last forced-GPU call per shape (TSSHIM_VERBOSE=3)"
for s in $shapes; do
  line=$(grep 'tsshim: pipeline ' "$logs/$s.gpu.log" 2>/dev/null | tail -n 1)
  [ -n "$line" ] && echo "$s: ${line#tsshim: }"
done
echo "(total $(($(date +%s) - started)) s)"
