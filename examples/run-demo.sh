#!/bin/sh
# The tsshim demo (`make demo`): runs each legacy Fortran program several
# times plain and several times with LD_PRELOAD of the shim and
# TSSHIM_VERBOSE=1, alternating the two, and shows the first run's output
# with the shim, whether every pair of runs printed the same numbers, and
# the shim's exit report; it ends with a table of times (each program times
# its own iterations: the median and min-max of each side), a verdict that
# names a faster side only when the difference is outside the run-to-run
# noise, where the GEMM calls ran, and a line saying whether the GPU was used.
# The runs of a pair must agree: identical when every call was forwarded to
# the CPU BLAS; within a relative tolerance when some ran on a GPU (its
# rounding differs).
#
# Usage: TSSHIM_LIB=/path/to/libtsshim.so run-demo.sh PROGRAM...
#   TSDEMO_ARGS     arguments for every program: n b iterations report_every
#   TSDEMO_REPEATS  runs of each side per program (default 5, or 3 when one
#                   run takes more than 10 s)
#   TSDEMO_CSV      also write the table to this CSV file
#   Other TSSHIM_ variables (e.g. TSSHIM_MODE=gpu) reach the shim unchanged.
# Exit status: 0 when every pair agrees, 1 when one disagrees or a run
# fails, 2 when the shim or a program is missing or a variable is wrong.

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

# The runs of each side per program.  Five: with fewer, two sides that do
# not differ at all too often get ranges that happen not to overlap (with 3
# runs each 1 time in 10, with 5 runs 1 in 126).  Three when the first two
# runs took more than long_s seconds each on average, so that a realistic
# size stays within minutes.
long_s=10
case ${TSDEMO_REPEATS:-5} in
    '' | *[!0-9]* | 0*)
        echo "$me: TSDEMO_REPEATS must be a positive integer, not '$TSDEMO_REPEATS'" >&2
        exit 2 ;;
esac

# The CSV file is written one row per program as each finishes, so that a
# run cut short (bench/run-gpu-host.sh runs the demo under timeout) keeps
# the rows it finished.
csv=${TSDEMO_CSV:-}
if [ -n "$csv" ]; then
    echo program,plain_median_s,plain_min_s,plain_max_s,shim_median_s,shim_min_s,shim_max_s,verdict,gpu_calls,total_calls \
        >"$csv" || exit 2
fi

# Runs the program once, plain (side "plain") or with the shim ("shim"),
# into $work/NAME.SIDE.ROUND (stdout; .err stderr, .report the shim's exit
# report) and appends the seconds it reports to $work/NAME.SIDE.times.
# Sets rc to its exit status.
run_once() {
    out=$work/$name.$1.$2
    # TSDEMO_ARGS is split into the program's arguments on purpose.
    if [ "$1" = shim ]; then
        # shellcheck disable=SC2086
        LD_PRELOAD=$TSSHIM_LIB TSSHIM_VERBOSE=1 TSSHIM_LOG=$out.report \
            "$prog" $TSDEMO_ARGS >"$out" 2>"$out.err"
    else
        # shellcheck disable=SC2086
        "$prog" $TSDEMO_ARGS >"$out" 2>"$out.err"
    fi
    rc=$?
    cat "$out.err" >&2
    t=$(seconds "$out")
    [ $rc -ne 0 ] || [ -z "$t" ] || echo "$t" >>"$work/$name.$1.times"
}

# The table's columns; the rows are printed with the same format.
row='%-12s %4s  %-22s %-22s %-21s %-14s %s\n'
{
    echo "Times: seconds of each program's iterations, median (min-max) of the runs."
    echo "A speedup is named only outside the noise: when the ranges are apart and the"
    echo "medians differ by more than the larger relative spread (max-min)/median."
    # shellcheck disable=SC2059
    printf "$row" program runs 'without shim' 'with shim' speedup 'GEMM on GPU' 'results agree'
} >"$work/summary"
: >"$work/calls"
status=0
for prog in "$@"; do
    name=${prog##*/}
    # The _s program works in single precision (about 7 digits).
    case $name in
        *_s) tol=1e-3 ;;
        *) tol=1e-8 ;;
    esac
    rounds=${TSDEMO_REPEATS:-5}
    agreement=identical
    failed=
    round=0
    while [ $round -lt "$rounds" ]; do
        round=$((round + 1))
        began=$(date +%s)
        # Each round swaps which side runs first, so that what a first run
        # gains or loses (files still cached, the CPU clock settling) falls
        # on both sides alike.
        if [ $((round % 2)) -eq 1 ]; then
            run_once plain $round; rc_plain=$rc
            run_once shim $round; rc_shim=$rc
        else
            run_once shim $round; rc_shim=$rc
            run_once plain $round; rc_plain=$rc
        fi
        if [ $round -eq 1 ]; then
            echo "== $name: with LD_PRELOAD=$TSSHIM_LIB TSSHIM_VERBOSE=1; its output:"
            cat "$work/$name.shim.1"
            if [ -z "${TSDEMO_REPEATS:-}" ] && [ $(($(date +%s) - began)) -gt $((2 * long_s)) ]; then
                rounds=3
            fi
        fi
        if [ $rc_plain -ne 0 ] || [ $rc_shim -ne 0 ]; then
            failed="exit status $rc_plain without the shim, $rc_shim with it, run $round"
            echo "-- $name run $round of $rounds failed: $failed"
            break
        fi
        echo "-- $name run $round of $rounds: $(seconds "$work/$name.plain.$round") s without the shim," \
            "$(seconds "$work/$name.shim.$round") s with it"
        grep -v '^time ' "$work/$name.plain.$round" >"$work/plain.cmp"
        grep -v '^time ' "$work/$name.shim.$round" >"$work/shim.cmp"
        if cmp -s "$work/plain.cmp" "$work/shim.cmp"; then
            :
        elif agree "$work/plain.cmp" "$work/shim.cmp" "$tol"; then
            [ $agreement = NO ] || agreement=tolerance
        else
            agreement=NO
        fi
    done

    if [ -n "$failed" ]; then
        verdict="NO ($failed)"
        status=1
    elif [ $agreement = identical ]; then
        verdict="yes (identical)"
    elif [ $agreement = tolerance ]; then
        verdict="yes (within relative tolerance $tol)"
    else
        verdict=NO
        status=1
    fi
    echo "-- results of each pair of runs agree: $verdict"
    echo "-- the shim's exit report (run 1):"
    cat "$work/$name.shim.1.report" 2>/dev/null
    echo

    # The GEMM calls of each run with the shim: the exit report says, per
    # routine, "calls=N offloaded=M".  In auto mode the routing follows
    # measured times, so it may differ from run to run: min-max then.
    for report in "$work/$name".shim.*.report; do
        [ -f "$report" ] || continue
        awk '{ for (i = 1; i <= NF; i++) {
                   if ($i ~ /^calls=/) calls += substr($i, 7)
                   if ($i ~ /^offloaded=/) gpu += substr($i, 11) } }
             END { if (calls != "") print gpu + 0, calls }' "$report"
    done >"$work/$name.calls"

    awk -v name="$name" -v agree="$verdict" -v row="$row" -v csv="$csv" -v totals="$work/calls" \
        -v plain="$work/$name.plain.times" -v shim="$work/$name.shim.times" '
        # Reads one time a line from file into the sorted v[1..n]; returns n.
        function load(file, v,   n, t, i) {
            n = 0
            while ((getline t <file) > 0) {
                for (i = n; i >= 1 && v[i] > t + 0; i--)
                    v[i + 1] = v[i]
                v[i + 1] = t + 0
                n++
            }
            close(file)
            return n
        }
        function median(v, n) {
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        function cell(v, n) {
            return n ? sprintf("%.3f (%.3f-%.3f)", median(v, n), v[1], v[n]) : "-"
        }
        function fields(v, n) {
            return n ? sprintf("%.3f,%.3f,%.3f", median(v, n), v[1], v[n]) : ",,"
        }
        { if (gmin == "" || $1 < gmin) gmin = $1 + 0
          if (gmax == "" || $1 > gmax) gmax = $1 + 0
          if ($2 > calls) calls = $2 + 0 }
        END {
            np = load(plain, p)
            ns = load(shim, s)
            if (np == 0 || ns == 0)
                speed = "-"
            else {
                ratio = median(p, np) / median(s, ns)
                spread = (p[np] - p[1]) / median(p, np)
                if ((s[ns] - s[1]) / median(s, ns) > spread)
                    spread = (s[ns] - s[1]) / median(s, ns)
                apart = p[1] > s[ns] || s[1] > p[np]
                diff = ratio > 1 ? ratio - 1 : 1 / ratio - 1
                # One run has no spread: no noise to compare with.
                if (np < 2 || ns < 2)
                    speed = sprintf("%.2fx (noise unknown)", ratio)
                else if (!apart || diff <= spread)
                    speed = "within noise"
                else
                    speed = sprintf("%.2fx (shim %s)", ratio, ratio > 1 ? "faster" : "slower")
            }
            gpu = gmin == "" ? "" : gmin == gmax ? gmin : gmin "-" gmax
            runs = np > ns ? np : ns
            printf row, name, runs, cell(p, np), cell(s, ns), speed,
                gpu == "" ? "?" : gpu " of " calls, agree
            if (csv != "")
                printf "%s,%s,%s,%s,%s,%s\n", name, fields(p, np), fields(s, ns),
                    speed, gpu, calls >>csv
            # For the last line: the calls of one run of each program.
            if (gmin != "")
                printf "%d %d %d\n", gmin, gmax, calls >>totals
        }' "$work/$name.calls" >>"$work/summary"
done

cat "$work/summary"
awk '
    { gmin += $1; gmax += $2; calls += $3; seen = 1 }
    END {
        per = " (one run of each program)"
        gpu = gmin == gmax ? gmin : gmin "-" gmax
        if (!seen)
            print "GPU used: unknown (the shim wrote no exit report)"
        else if (gmax > 0)
            printf "GPU used: yes, %s of %d GEMM calls ran on the GPU%s\n", gpu, calls, per
        else
            printf "GPU used: no, all %d GEMM calls were forwarded to the CPU BLAS%s\n", calls, per
    }' "$work/calls"
exit $status
