#!/bin/sh
# The tsshim demo (`make demo`): runs each legacy Fortran program twice,
# once plain and once with LD_PRELOAD of the shim and TSSHIM_VERBOSE=1, and
# shows the second run's output, whether both runs printed the same numbers,
# and the shim's exit report; it ends with a table of times (each program
# times its own iterations) and a line saying whether the GPU was used.
# Both runs must agree: identical when every call was forwarded to the CPU
# BLAS; within a relative tolerance when some ran on a GPU (its rounding
# differs).
#
# Usage: TSSHIM_LIB=/path/to/libtsshim.so run-demo.sh PROGRAM...
#   TSDEMO_ARGS  arguments for every program: n b iterations report_every
#   Other TSSHIM_ variables (e.g. TSSHIM_MODE=gpu) reach the shim unchanged.
# Exit status: 0 when every pair agrees, 1 when one disagrees or a run
# fails, 2 when the shim or a program is missing.

me=run-demo.sh

if [ -z "${TSSHIM_LIB:-}" ]; then
    echo "$me: TSSHIM_LIB is not set (run 'make demo', or set it to the built libtsshim.so)" >&2
    exit 2
fi
if [ ! -f "$TSSHIM_LIB" ]; then
    echo "$me: the shim is not built: $TSSHIM_LIB does not exist (run 'make' first)" >&2
    exit 2
fi
if [ $# -eq 0 ]; then
    echo "usage: TSSHIM_LIB=/path/to/libtsshim.so $me PROGRAM..." >&2
    exit 2
fi
for prog in "$@"; do
    if [ ! -x "$prog" ]; then
        echo "$me: $prog is not built (run 'make' first)" >&2
        exit 2
    fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/tsshim-demo.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The seconds a program reports on its "time" line.
seconds() {
    sed -n 's/^time *\([0-9.]*\).*/\1/p' "$1"
}

# Compares two outputs field by field: words must be equal, numbers x and y
# must satisfy |x - y| <= tol * max(1, |x|, |y|) + one unit in the last
# printed digit (the floor of 1 because the residuals and errors printed are
# relative, and their rounding-level digits differ on another BLAS; the unit
# because a tiny difference can still change the rounding of the last digit).
# Prints the first differing lines; fails on any.
agree() {
    awk -v tol="$3" '
        function abs(x) { return x < 0 ? -x : x }
        function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
        function unit(s,   e, p) {
            e = 0
            if (match(s, /[eE]/)) {
                e = substr(s, RSTART + 1) + 0
                s = substr(s, 1, RSTART - 1)
            }
            p = index(s, ".")
            return 10 ^ (e - (p ? length(s) - p : 0))
        }
        function same(x, y,   m) {
            if (!isnum(x) || !isnum(y))
                return x == y
            m = abs(x + 0) > abs(y + 0) ? abs(x + 0) : abs(y + 0)
            return abs(x - y) <= tol * (m > 1 ? m : 1) + unit(x)
        }
        FILENAME == ARGV[1] { ref[++nref] = $0; next }
        {
            nout++
            nw = split(ref[nout], w)
            ok = nw == NF
            for (i = 1; ok && i <= NF; i++)
                ok = same(w[i], $i)
            if (!ok && ++bad <= 5)
                printf "  differs: \"%s\"\n      vs.: \"%s\"\n", ref[nout], $0
        }
        END {
            if (nout != nref)
                printf "  %d lines without the shim, %d with it\n", nref, nout
            exit (bad > 0 || nout != nref)
        }' "$1" "$2"
}

status=0
printf '%-14s %12s %12s %9s  %s\n' program 'without shim' 'with shim' speedup 'results agree' >"$work/summary"
for prog in "$@"; do
    name=${prog##*/}
    plain=$work/$name.plain
    shim=$work/$name.shim
    report=$work/$name.report

    # TSDEMO_ARGS is split into the program's arguments on purpose.
    echo "== $name: without the shim"
    # shellcheck disable=SC2086
    "$prog" $TSDEMO_ARGS >"$plain" 2>"$plain.err"
    rc_plain=$?
    echo "== $name: with LD_PRELOAD=$TSSHIM_LIB TSSHIM_VERBOSE=1; its output:"
    # shellcheck disable=SC2086
    LD_PRELOAD=$TSSHIM_LIB TSSHIM_VERBOSE=1 TSSHIM_LOG=$report \
        "$prog" $TSDEMO_ARGS >"$shim" 2>"$shim.err"
    rc_shim=$?
    cat "$shim"

    # The _s program works in single precision (about 7 digits).
    case $name in
        *_s) tol=1e-3 ;;
        *) tol=1e-8 ;;
    esac
    cat "$plain.err" "$shim.err" >&2
    grep -v '^time ' "$plain" >"$plain.cmp"
    grep -v '^time ' "$shim" >"$shim.cmp"
    if [ $rc_plain -ne 0 ] || [ $rc_shim -ne 0 ]; then
        verdict="NO (exit status $rc_plain without the shim, $rc_shim with it)"
        status=1
    elif cmp -s "$plain.cmp" "$shim.cmp"; then
        verdict="yes (identical)"
    elif agree "$plain.cmp" "$shim.cmp" "$tol"; then
        verdict="yes (within relative tolerance $tol)"
    else
        verdict=NO
        status=1
    fi
    echo "-- results of both runs agree: $verdict"
    echo "-- the shim's exit report:"
    cat "$report" 2>/dev/null
    echo

    t_plain=$(seconds "$plain")
    t_shim=$(seconds "$shim")
    awk -v p="$name" -v a="${t_plain:-0}" -v b="${t_shim:-0}" -v v="$verdict" 'BEGIN {
        printf "%-14s %10.3f s %10.3f s %8s  %s\n", p, a, b, (b > 0 ? sprintf("%.2fx", a / b) : "-"), v }' \
        >>"$work/summary"
done

cat "$work/summary"
# The exit reports say, per routine, "calls=N offloaded=M".
cat "$work"/*.report 2>/dev/null | awk '
    {
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^calls=/) { calls += substr($i, 7); seen = 1 }
            if ($i ~ /^offloaded=/) gpu += substr($i, 11)
        }
    }
    END {
        if (!seen)
            print "GPU used: unknown (the shim wrote no exit report)"
        else if (gpu > 0)
            printf "GPU used: yes, %d of %d GEMM calls ran on the GPU\n", gpu, calls
        else
            printf "GPU used: no, all %d GEMM calls were forwarded to the CPU BLAS\n", calls
    }'
exit $status
