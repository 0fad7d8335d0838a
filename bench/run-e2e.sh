#!/bin/sh
# End-to-end benchmark: every case of bench_e2e run as
#   (a) plain: the CPU BLAS alone (device cases: cuBLAS called directly),
#   (b) under libtsshim.so in auto mode, (c) under libtsshim.so, TSSHIM_MODE=gpu;
# prints times, the ratios auto/plain and gpu/plain (below 1: the shim is
# faster), auto against the faster of (a) and (c), and each offloaded run's
# fraction of the PCIe bound
#   max(bytes in / pinned h2d rate, bytes out / pinned d2h rate) / time;
# then, for the reuse cases, the first call and the mean later call of each
# run and the speedup after the first call, and the steady state (the
# fastest call after each run's first three, issue 22's measure: it leaves
# out auto mode's rent-or-buy start on a new operand, which the mean
# includes); for the program cases the time of the program's GEMM within
# the whole run.  The CSV's *_steady_ms columns are that steady state for
# reuse and chain cases and the case's figure for the others.
# bench_e2e checks every result (e^T C against e^T op(A) op(B)); a wrong
# one is marked FAIL in the table and the CSV, listed at the end, and makes
# the exit status 1: a stale device copy must not pass for a speedup.
# Writes OUTDIR/e2e.csv and the shim's reports to OUTDIR/e2e-logs/; the
# forced-GPU runs log at TSSHIM_VERBOSE=3 (a trace line and a pipeline phase
# line per call; not the small cases, whose timing that would change), and
# each case's last phase line is printed after the tables.  Auto runs log at
# TSSHIM_VERBOSE=1 to tell where the calls ran, except the small cases:
# counting would be most of their cost, so they are timed at verbosity 0
# (as a program runs them) and a second run tells where.  E2E_ROUNDS
# (default 2) repeats the three runs of a case in turn and keeps each one's
# fastest: OpenBLAS's time varies from process to process more than from
# batch to batch; reuse and chain cases run E2E_REUSE_ROUNDS times (default
# 1: their figure is already a mean of several calls, and their first call
# happens once per process).  Each run is cut off after RUN_LIMIT seconds
# (default 60) so one stuck case cannot eat the whole run; the whole list
# should take about 6 minutes on the GPU host.  Auto runs warm up for
# E2E_WARMUP_S seconds (default 2) of calls before the timed ones: the
# steady state of a long-running program, since the shim keeps a process's
# first calls on the CPU until their forgone savings pay for starting the
# GPU (reuse and chain cases warm up on other memory; program cases never).
#
# Usage: run-e2e.sh OUTDIR [PROFILE] [CASE...]
#   E2E_CASES   without CASE arguments, the cases to run: names or shell
#               patterns, e.g. 'reuse_* chain_* program_*' (default: all
#               but the multi-GPU split_* cases, which bench/run-split.sh runs)
#   BENCH       bench_e2e program (default ./bench/bench_e2e)
#   TSSHIM_LIB  libtsshim.so   (default ./.libs/libtsshim.so)
#   TSSHIM_PRELOAD  what is preloaded (default TSSHIM_LIB; make check puts
#               the sanitizer runtime first in sanitizer builds)
#   E2E_SHRINK  passed on: divides the dimensions (a smoke run without a GPU)
# PROFILE (tsshim-calibrate's) gives the pinned rates and is the cost model
# the auto runs use; without it the built-in figures apply.
set -u
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [PROFILE] [CASE...]" >&2; exit 2; }
out=$1
shift
profile=
if [ $# -ge 1 ]; then profile=$1; shift; fi
bench=${BENCH:-./bench/bench_e2e}
limit=${RUN_LIMIT:-60}
started=$(date +%s)
lib=${TSSHIM_LIB:-$(pwd)/.libs/libtsshim.so}
logs=$out/e2e-logs
mkdir -p "$logs" || exit 1
[ -x "$bench" ] || { echo "$0: no $bench" >&2; exit 1; }
[ -f "$lib" ] || { echo "$0: no $lib" >&2; exit 1; }
preload=${TSSHIM_PRELOAD:-$lib}
failures=$logs/failures
: >"$failures"

h2d=55.6
d2h=55.4
if [ -n "$profile" ] && [ -r "$profile" ]; then
  TSSHIM_PROFILE=$profile
  export TSSHIM_PROFILE
  h2d=$(awk '$1 == "h2d_pinned_gbs" { print $2 }' "$profile")
  d2h=$(awk '$1 == "d2h_pinned_gbs" { print $2 }' "$profile")
fi
unset TSSHIM_MODE TSSHIM_VERBOSE TSSHIM_LOG

# The case list, "name class kind" per line; the selection.
list=$("$bench" --list) || exit 1
if [ $# -gt 0 ]; then
  cases=$*
else
  cases=
  set -f # the patterns are for the case names, not for files here
  for name in $(echo "$list" | awk '{ print $1 }'); do
    case ${E2E_CASES:-}.$name in .split_*) continue ;; esac
    for pattern in ${E2E_CASES:-*}; do
      # shellcheck disable=SC2254
      case $name in $pattern) cases="$cases $name"; break ;; esac
    done
  done
  set +f
fi
[ -n "$cases" ] || { echo "$0: no case matches E2E_CASES='${E2E_CASES:-}'" >&2; exit 2; }

# One run: prints bench_e2e's CSV line then ",where" (gpu when the shim's
# report counts an offloaded call of the case's routine, cpu otherwise,
# "-" without the shim; the reuse cases start the GPU with sgemm_).
# A result that failed its check is also noted in $failures.
run() { # case mode
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
          line=$(TSSHIM_MODE=auto LD_PRELOAD=$preload timeout "$limit" "$bench" "$1")
          TSSHIM_MODE=auto TSSHIM_VERBOSE=1 TSSHIM_LOG=$log LD_PRELOAD=$preload timeout "$limit" "$bench" "$1" >/dev/null ;;
        *) line=$(E2E_WARMUP_S=$warm TSSHIM_MODE=$mode TSSHIM_VERBOSE=$verbose TSSHIM_LOG=$log LD_PRELOAD=$preload \
                    timeout "$limit" "$bench" "$1") ;;
      esac
      routine=$(echo "$line" | cut -d, -f4)gemm_
      where=$(awk -v r="$routine" '$2 == r { for (i = 3; i <= NF; i++) if ($i ~ /^offloaded=/) { split($i, v, "="); n += v[2] } }
                   END { print (n > 0 ? "gpu" : "cpu") }' "$log" 2>/dev/null) ;;
  esac
  case $line in *,FAIL) echo "$1 $2" >>"$failures" ;; esac
  [ -n "$line" ] && echo "$line,${where:-cpu}"
}

csv=$out/e2e.csv
echo "case,class,kind,prec,m,n,k,memory,bytes_in,bytes_out,plain_ms,auto_ms,gpu_ms,auto_ran_on,auto_over_plain,gpu_over_plain,auto_vs_best,pcie_fraction_auto,pcie_fraction_gpu,plain_first_ms,auto_first_ms,gpu_first_ms,plain_steady_ms,auto_steady_ms,gpu_steady_ms,auto_vs_best_steady,check" >"$csv"
# The fastest of the lines on stdin (field 9 is the case's time).
fastest() { awk -F, 'NF > 9 && (best == "" || $9 < t) { best = $0; t = $9 } END { print best }'; }

for s in $cases; do
  a= b= c=
  r=0
  case $(echo "$list" | awk -v n="$s" '$1 == n { print $3 }') in
    reuse | chain) rounds=${E2E_REUSE_ROUNDS:-1} ;;
    *) rounds=${E2E_ROUNDS:-2} ;;
  esac
  while [ "$r" -lt "$rounds" ]; do
    a=$(printf '%s\n%s\n' "$a" "$(run "$s" plain)" | fastest)
    b=$(printf '%s\n%s\n' "$b" "$(run "$s" auto)" | fastest)
    c=$(printf '%s\n%s\n' "$c" "$(run "$s" gpu)" | fastest)
    r=$((r + 1))
  done
  if [ -z "$a" ] || [ -z "$b" ] || [ -z "$c" ]; then
    echo "$s: a run failed" >&2
    echo "$s (a run failed)" >>"$failures"
    continue
  fi
  failed=$(grep -c "^$s " "$failures")
  printf '%s\n%s\n%s\n' "$a" "$b" "$c" | awk -F, -v h2d="$h2d" -v d2h="$d2h" -v failed="$failed" '
    { t[NR] = $9 * 1e3; f[NR] = $13 < 0 ? "-" : sprintf("%.6g", $13 * 1e3); w[NR] = $16; chk[NR] = $14
      st[NR] = $15 < 0 ? t[NR] : $15 * 1e3
      head = $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8; kind = $3; bin = $10; bout = $11 }
    function frac(ms, where) {
      bound = bin / (h2d * 1e6); o = bout / (d2h * 1e6); if (o > bound) bound = o
      return (kind == "call" && where == "gpu" && bound > 0) ? sprintf("%.2f", bound / ms) : "-"
    }
    END {
      best = t[1] < t[3] ? t[1] : t[3]
      sbest = st[1] < st[3] ? st[1] : st[3]
      check = failed > 0 ? "FAIL" : (chk[1] == "ok" || chk[2] == "ok" || chk[3] == "ok") ? "ok" : "-"
      printf "%s,%s,%s,%.6g,%.6g,%.6g,%s,%.3f,%.3f,%.3f,%s,%s,%s,%s,%s,%.6g,%.6g,%.6g,%.3f,%s\n", head, bin, bout, t[1],
             t[2], t[3], w[2], t[2] / t[1], t[3] / t[1], t[2] / best, frac(t[2], w[2]), frac(t[3], w[3]), f[1], f[2], f[3],
             st[1], st[2], st[3], st[2] / sbest, check
    }' >>"$csv"
done

# The tables: times in ms (ns per call below 10 us).
awk -F, 'NR == 1 { next }
  function tm(ms) { return ms < 1e-2 ? sprintf("%.0fns", ms * 1e6) : sprintf("%.2f", ms) }
  BEGIN { printf "%-22s %-7s %10s %10s %10s %5s %10s %9s %9s %6s %6s %5s\n", "case", "kind", "plain", "auto", "gpu",
          "auto@", "auto/plain", "gpu/plain", "auto/best", "pcie_a", "pcie_g", "check" }
  { printf "%-22s %-7s %10s %10s %10s %5s %10.3f %9.3f %9.3f %6s %6s %5s\n", $1, $3, tm($11), tm($12), tm($13), $14,
           $15, $16, $17, $18, $19, $27 }' "$csv"
echo "(times in ms unless marked: call: one call, best batch; reuse: the mean call after the first;"
echo " chain: the mean iteration (3 calls) after the first; program: the whole program, fork to exit;"
echo " auto/plain, gpu/plain: time ratios, below 1 the shim is faster; device cases: plain = cuBLAS called directly;"
echo " pcie_a, pcie_g: each offloaded call's fraction of the PCIe bound, pinned h2d $h2d / d2h $d2h GB/s; csv: $csv)"
if grep -q ',reuse,\|,chain,' "$csv"; then
  echo "== operand reuse: first call (iteration) and the mean of the later ones, ms; speedup after the first: plain / shim;"
  echo "   steady: the fastest after the first three, ms, and auto's over the faster of plain and gpu"
  awk -F, 'NR == 1 { next } $3 == "reuse" || $3 == "chain" {
      if (!hdr++) printf "%-22s %9s %9s %9s %9s %9s %9s %8s %8s %10s %9s %9s %9s %9s\n", "case", "plain 1st", "later",
                         "auto 1st", "later", "gpu 1st", "later", "x auto", "x gpu", "gpu 1st/later", "steady p",
                         "steady a", "steady g", "auto/best"
      printf "%-22s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %8.2f %8.2f %10.2f %9.2f %9.2f %9.2f %9.3f\n", $1, $20, $11, $21,
             $12, $22, $13, $11 / $12, $11 / $13, $22 / $13, $23, $24, $25, $26 }' "$csv"
fi
if grep -q ',program,' "$csv"; then
  echo "== whole programs: wall time, and the time of its one GEMM, ms"
  awk -F, 'NR == 1 { next } $3 == "program" {
      if (!hdr++) printf "%-22s %9s %9s %9s %9s %9s %9s\n", "case", "plain", "gemm", "auto", "gemm", "gpu", "gemm"
      printf "%-22s %9.1f %9.2f %9.1f %9.2f %9.1f %9.2f\n", $1, $11, $20, $12, $21, $13, $22 }' "$csv"
fi
echo "== pipeline phases of the last forced-GPU call per case (TSSHIM_VERBOSE=3)"
for s in $cases; do
  line=$(grep 'tsshim: pipeline ' "$logs/$s.gpu.log" 2>/dev/null | tail -n 1)
  [ -n "$line" ] && echo "$s: ${line#tsshim: }"
done
echo "(total $(($(date +%s) - started)) s)"
if [ -s "$failures" ]; then
  echo "== WRONG RESULTS or failed runs (case mode; details on stderr above):"
  sort -u "$failures"
  exit 1
fi
exit 0
