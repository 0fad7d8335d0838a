#!/bin/sh
# ScaLAPACK benchmark under mpirun: bench/scalapack/cholqr (CholeskyQR2 and
# PDGEQRF of a tall M x N matrix over a P x 1 process grid, whose local
# calls are tall-and-skinny DGEMM and DTRSM) run for every size, case and
# rank count once without the shim (plain) and once with libtsshim.so
# preloaded into every rank in each mode of TSSHIM_SCALAPACK_BENCH_MODES.  Prints a table of the best and median
# seconds, the ratio best(mode) / best(plain) (below 1: the shim is
# faster), the calls that ran on the GPU, and the program's own check
# (||Q^T Q - I||_F and ||Q R - A||_F / ||A||_F); a failed check or run
# makes the exit status 1.
#
# Usage: run-cholqr.sh OUTDIR    (from a build tree, or with TSSHIM_LIB)
# Writes OUTDIR/scalapack-cholqr-GPU-DATE.csv and .txt (GPU: nvidia-smi's
# name without "NVIDIA ", spaces as dashes, or cpu-only; DATE in UTC) and
# every run's output and shim logs under OUTDIR/scalapack-cholqr-logs/.
#
# Environment (defaults in brackets):
#   TSSHIM_LIB, TSSHIM_PRELOAD   the shim and what is preloaded
#                                [./.libs/libtsshim.so; TSSHIM_LIB]
#   TSSHIM_SCALAPACK_BENCH_BIN   a prebuilt cholqr [built into OUTDIR with
#                                $MPICC (mpicc) from cholqr.c]
#   TSSHIM_SCALAPACK_LIBS        the ScaLAPACK link flags [-lscalapack-openmpi]
#   TSSHIM_SCALAPACK_LIBDIR      a folder holding that library: -L and rpath
#                                of the build, and put on LD_LIBRARY_PATH of
#                                the runs (a prebuilt binary on another host)
#   TSSHIM_SCALAPACK_BENCH_SIZES   M x N pairs [16777216x16 16777216x64]
#   TSSHIM_SCALAPACK_BENCH_CASES   cholqr2, geqrf or both [cholqr2]; a geqrf
#                                  run (level-2 panels) took 2 to 2.5 times
#                                  as long as a cholqr2 one on two cores
#   TSSHIM_SCALAPACK_BENCH_RANKS   [4 8 16]
#   TSSHIM_SCALAPACK_BENCH_MODES   the shim's modes [auto]
#   TSSHIM_SCALAPACK_BENCH_REPEATS timed iterations per run, after one
#                                  warm-up [3]
#   TSSHIM_SCALAPACK_BENCH_TIMEOUT seconds per mpirun [600]
#   TSSHIM_SCALAPACK_MPIRUN      Open MPI's launcher [mpirun.openmpi, else
#                                mpirun]
#   OPENBLAS_NUM_THREADS         BLAS threads per rank [1]: ranks times
#                                threads should not exceed the cores, or the
#                                ranks compete for them and the times say
#                                little (the table marks such rank counts)
#   abs_top_srcdir, abs_top_builddir  the source tree [this script's] and
#                                the build tree [the current folder], where
#                                tests/has_gpu may say whether a GPU is there
# Open MPI runs as tests/scalapack/check-scalapack.sh sets it up (root
# allowed, shared memory only); --oversubscribe only where the ranks
# outnumber the cores.
set -u
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
abs_top_srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
abs_top_builddir=${abs_top_builddir:-$(pwd)}
TSSHIM_LIB=${TSSHIM_LIB:-$(pwd)/.libs/libtsshim.so}
sizes=${TSSHIM_SCALAPACK_BENCH_SIZES:-16777216x16 16777216x64}
cases=${TSSHIM_SCALAPACK_BENCH_CASES:-cholqr2}
ranks=${TSSHIM_SCALAPACK_BENCH_RANKS:-4 8 16}
modes=${TSSHIM_SCALAPACK_BENCH_MODES:-auto}
repeats=${TSSHIM_SCALAPACK_BENCH_REPEATS:-3}
limit=${TSSHIM_SCALAPACK_BENCH_TIMEOUT:-600}

. "$abs_top_srcdir/tests/suite-common.sh"

require_shim TSSHIM_SCALAPACK_BENCH_MODES "$modes"
for v in "$repeats" "$limit" $ranks; do
    case $v in
    '' | *[!0-9]* | 0) bail "'$v' is not a positive number (TSSHIM_SCALAPACK_BENCH_REPEATS, _TIMEOUT or _RANKS)" ;;
    esac
done
for s in $sizes; do
    case $s in
    [1-9]*x[1-9]*) ;;
    *) bail "TSSHIM_SCALAPACK_BENCH_SIZES: '$s' is not MxN" ;;
    esac
done
for c in $cases; do
    case $c in
    cholqr2 | geqrf) ;;
    *) bail "TSSHIM_SCALAPACK_BENCH_CASES: '$c' is not cholqr2 or geqrf" ;;
    esac
done
mkdir -p "$out" || bail "cannot create $out"
out=$(cd "$out" && pwd)
base=$out/scalapack-cholqr-logs

open_mpi_setup
[ -n "$mpirun" ] || bail "no mpirun (install openmpi-bin or set TSSHIM_SCALAPACK_MPIRUN)"

libdir=${TSSHIM_SCALAPACK_LIBDIR:-}
if [ -n "$libdir" ]; then
    LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
if [ -n "${TSSHIM_SCALAPACK_BENCH_BIN:-}" ]; then
    bin=$TSSHIM_SCALAPACK_BENCH_BIN
else
    bin=$out/cholqr
    # shellcheck disable=SC2086 # the link flags are words
    "${MPICC:-mpicc}" -std=c11 -O2 -Wall -Wextra -o "$bin" "$abs_top_srcdir/bench/scalapack/cholqr.c" \
        ${libdir:+-L"$libdir" -Wl,-rpath,"$libdir"} ${TSSHIM_SCALAPACK_LIBS:--lscalapack-openmpi} ||
        bail "cannot build $bin (libscalapack-openmpi-dev and libopenmpi-dev, or TSSHIM_SCALAPACK_LIBS and _LIBDIR)"
fi
[ -x "$bin" ] || bail "TSSHIM_SCALAPACK_BENCH_BIN='$bin' is not a program"

OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OPENBLAS_NUM_THREADS
unset TSSHIM_MODE TSSHIM_VERBOSE TSSHIM_LOG
cores=$(getconf _NPROCESSORS_ONLN)

suite_start # $timeout_cmd, $gpu_skip, $base made anew
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^NVIDIA //; s/ /-/g')
[ -n "$gpu" ] || gpu=cpu-only
day=$(date -u +%Y-%m-%d)
csv=$out/scalapack-cholqr-$gpu-$day.csv
txt=$out/scalapack-cholqr-$gpu-$day.txt
started=$(date +%s)

# run SIZE CASE NP MODE: one mpirun into its own folder; prints "best
# median gram chol trsm offloaded check" (seconds; the phases of cholqr2
# only, else "-"; offloaded: calls on the GPU / calls the shim saw, all
# ranks, "-" without the shim; check FAIL also for a failed or timed-out
# run).
run() {
    m=${1%x*} n=${1#*x}
    dir=$base/$1/$2/$3/$4
    mkdir -p "$dir" || bail "cannot create $dir"
    over=
    [ "$3" -gt "$cores" ] && over=--oversubscribe
    if [ "$4" = plain ]; then
        # shellcheck disable=SC2154 # timeout_cmd: suite_start's
        $timeout_cmd "$mpirun" $over -np "$3" "$bin" "$m" "$n" "$repeats" "$2" >"$dir/stdout" 2>"$dir/stderr" </dev/null
    else
        # env starts every rank with the shim: mpirun itself is not preloaded.
        $timeout_cmd "$mpirun" $over -np "$3" env \
            "LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD }${TSSHIM_PRELOAD:-$TSSHIM_LIB}" TSSHIM_MODE="$4" \
            TSSHIM_VERBOSE=1 TSSHIM_LOG="$dir/shim.%r.log" \
            "$bin" "$m" "$n" "$repeats" "$2" >"$dir/stdout" 2>"$dir/stderr" </dev/null
    fi
    echo $? >"$dir/rc"
    offloaded=-
    [ "$4" = plain ] || offloaded=$(cat "$dir"/shim.*.log 2>/dev/null | awk -f "$abs_top_srcdir/tests/shim-report.awk" |
        awk '$2 == "shim:" && $4 ~ /^calls=/ { c += substr($4, 7); o += substr($5, 11) } END { printf "%d/%d", o, c }')
    awk -v rc="$(cat "$dir/rc")" -v off="$offloaded" '
        /^case=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END {
            split("best_s median_s gram_s chol_s trsm_s", k, " ")
            for (i = 1; i <= 5; i++)
                printf "%s ", v[k[i]] == "" ? "-" : v[k[i]]
            print off, (rc == 0 && v["check"] == "PASS") ? "PASS" : "FAIL"
        }' "$dir/stdout"
}

# result SIZE CASE NP MODE: run's words as $best $median $gram $chol $trsm
# $offloaded $check.
result() {
    read -r best median gram chol trsm offloaded check <<EOF
$(run "$@")
EOF
}

echo "case,ranks,m,n,mode,best_s,median_s,ratio_vs_plain,gram_s,chol_s,trsm_s,offloaded,check" >"$csv"
failed=
for s in $sizes; do
    for c in $cases; do
        for np in $ranks; do
            for mode in plain $modes; do
                result "$s" "$c" "$np" "$mode"
                [ "$mode" = plain ] && plain_best=$best
                ratio=$(awk -v a="$best" -v b="$plain_best" 'BEGIN { print (a + 0 > 0 && b + 0 > 0) ? sprintf("%.3f", a / b) : "-" }')
                echo "$c,$np,${s%x*},${s#*x},$mode,$best,$median,$ratio,$gram,$chol,$trsm,$offloaded,$check" >>"$csv"
                [ "$check" = PASS ] || failed="$failed $s/$c/$np/$mode"
            done
        done
    done
done

{
    echo "ScaLAPACK CholeskyQR2 / PDGEQRF under $mpirun, $gpu, $day; $cores cores, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS, best of $repeats after a warm-up"
    [ -n "$gpu_skip" ] && echo "($gpu_skip: the shim forwards every call)"
    awk -F, 'NR > 1 {
        f = "%-8s %5s %9s %3s %-5s %10s %10s %7s %10s %10s %10s %11s %5s\n"
        if (!hdr++) printf f, "case", "ranks", "m", "n", "mode", "best_s", "median_s", "x plain", "gram_s", "chol_s",
                           "trsm_s", "gpu/calls", "check"
        printf f, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$csv"
    echo "(x plain: best time over the plain run's best, below 1 the shim is faster; gpu/calls: the shim's calls"
    echo " that ran on the GPU, all ranks; gram_s, chol_s, trsm_s: cholqr2's phases, medians, both passes;"
    echo " check: orthogonality and residual below 1e-10, the run exited 0)"
    for np in $ranks; do
        [ $((np * OPENBLAS_NUM_THREADS)) -gt "$cores" ] &&
            echo "note: $np ranks x $OPENBLAS_NUM_THREADS BLAS threads exceed the $cores cores: those times are oversubscribed"
    done
    echo "(csv: $csv; logs: $base; total $(elapsed $(($(date +%s) - started))))"
    [ -n "$failed" ] && echo "FAILED:$failed (see their stdout and stderr under $base)"
} | tee "$txt"
[ -z "$failed" ]
