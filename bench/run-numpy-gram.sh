#!/bin/sh
# a.T @ a of a tall float64 NumPy array (bench/numpy_gram.py) without the
# shim, then under it in each mode of NUMPY_GRAM_MODES: the first call and
# the best and median later call, the ratio to the run without the shim
# (below 1: the shim is faster), the later calls' rate over A's bytes, all
# calls' time and its ratio to the run without the shim, and where the shim
# ran the calls (its exit report).
# Usage: run-numpy-gram.sh OUTDIR   (from a build tree, or with TSSHIM_LIB)
#   NUMPY_GRAM_SHAPE  ROWSxCOLS [4000000x16]   NUMPY_GRAM_CALLS [10]
#   NUMPY_GRAM_MODES  [auto gpu]
#   PYTHON  [the first of python3 and /usr/bin/python3 that imports NumPy]
# Writes OUTDIR/numpy-gram-GPU-DATE.csv and .txt; exit status 1 when a
# result is wrong or a run fails.
set -u
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
lib=${TSSHIM_LIB:-$(pwd)/.libs/libtsshim.so}
here=$(cd "$(dirname "$0")" && pwd)
shape=${NUMPY_GRAM_SHAPE:-4000000x16}
calls=${NUMPY_GRAM_CALLS:-10}
modes=${NUMPY_GRAM_MODES-auto gpu}
py=
for p in ${PYTHON:-python3 /usr/bin/python3}; do
    "$p" -c 'import numpy' 2>/dev/null && py=$p && break
done
rows=${shape%x*} cols=${shape#*x}
[ -n "$py" ] || { echo "no NumPy (tried: ${PYTHON:-python3 /usr/bin/python3})" >&2; exit 1; }
[ -f "$lib" ] || { echo "TSSHIM_LIB='$lib' is not a file" >&2; exit 1; }
mkdir -p "$out" || exit 1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^NVIDIA //; s/ /-/g')
day=$(date -u +%Y-%m-%d)
name=$out/numpy-gram-${gpu:-cpu-only}-$day
bytes=$(awk -v r="$rows" -v c="$cols" 'BEGIN { printf "%.0f", r * c * 8 }')
status=0
echo "mode,rows,cols,calls,first_ms,best_ms,median_ms,ratio_best_vs_plain,gb_per_s,total_ms,ratio_total_vs_plain,ran,check" >"$name.csv"
for mode in plain $modes; do
    log=$out/numpy-gram-$mode.log
    rm -f "$log"
    if [ "$mode" = plain ]; then
        line=$("$py" "$here/numpy_gram.py" "$rows" "$cols" "$calls") || status=1
        ran=-
    else
        line=$(env LD_PRELOAD="$lib" TSSHIM_MODE="$mode" TSSHIM_VERBOSE=1 TSSHIM_LOG="$log" \
            "$py" "$here/numpy_gram.py" "$rows" "$cols" "$calls") || status=1
        # The SYRK lines of the exit report: calls and how many ran on the GPU.
        ran=$(awk '$2 ~ /syrk/ && $3 ~ /^calls=/ { split($3, c, "="); split($4, o, "="); n += c[2]; g += o[2] }
            END { printf "%d/%d on the GPU", g, n }' "$log")
    fi
    v() { echo "$line" | sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
    [ "$mode" = plain ] && plain_best=$(v best_ms) plain_total=$(v total_ms)
    [ "$(v check)" = ok ] || status=1
    echo "$mode,$rows,$cols,$calls,$(v first_ms),$(v best_ms),$(v median_ms),$(awk -v b="$(v best_ms)" -v p="$plain_best" 'BEGIN { printf "%.3f", b / p }'),$(awk -v b="$(v best_ms)" -v n="$bytes" 'BEGIN { printf "%.1f", n / (b * 1e6) }'),$(v total_ms),$(awk -v t="$(v total_ms)" -v p="$plain_total" 'BEGIN { printf "%.3f", t / p }'),$ran,$(v check)" >>"$name.csv"
done
{
    echo "NumPy a.T @ a, A ${rows}x${cols} float64 ($bytes bytes), $calls calls per run, ${gpu:-no GPU}, $day; $("$py" -c 'import numpy; print("numpy", numpy.__version__)')"
    awk -F, '{ printf "%-6s %9s %5s %5s %10s %10s %10s %7s %9s %10s %7s %18s %5s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$name.csv"
    echo "(ratio: best later call over the plain run's, below 1 the shim is faster; gb_per_s: A's bytes over the best later call;"
    echo " ratio_total: all calls' time over the plain run's)"
} >"$name.txt"
cat "$name.txt"
exit $status
