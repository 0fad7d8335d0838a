#!/bin/sh
# TAP test: the reference LAPACK test suite (lapack_testing.py driving the
# xlintst* and xeigtst* testers of the distribution's liblapack-test) runs
# once against the system BLAS without the shim, then under LD_PRELOAD of
# libtsshim.so in each mode of TSSHIM_LAPACK_MODES. The shim must change no
# count of the suite's summary: tests run, numerical errors (results over
# the threshold) and other errors (illegal-value and INFO reports), per
# precision and per test family (the summary of one tester run, such as
# dsep.out). Per mode: one line saying that every tester ran to its end
# under the shim, and one line per precision comparing its counts.
# Where a family's counts under the shim differ, that precision's runs are
# repeated without the shim against the reference BLAS, and counts equal to
# those pass too: the system BLAS may fail tests of its own (OpenBLAS's
# complex kernels do on some CPUs), which a GPU computing the same calls
# does not; its counts are then those of a correct BLAS, never a mix.
#
# Environment: TSSHIM_LIB (the shim, required), TSSHIM_PRELOAD (what is
# preloaded; default TSSHIM_LIB); TSSHIM_LAPACK_TESTERS (a folder with the
# testers, and their .in files and lapack_testing.py there or in its in/
# subfolder; its lib/ subfolder, if any, goes on LD_LIBRARY_PATH; default:
# the liblapack-test package's /usr/lib/<multiarch>/lapack);
# TSSHIM_LAPACK_MODES (default "cpu auto gpu"); TSSHIM_LAPACK_PRECISIONS
# (default "s d c z"); TSSHIM_LAPACK_TIMEOUT (seconds per lapack_testing.py
# run, default 1200); TSSHIM_LAPACK_JOBS (runs at a time, default the CPU
# count); TSSHIM_LAPACK_REFBLAS (a folder holding the reference BLAS as
# libblas.so.3, put first on LD_LIBRARY_PATH of the reference runs; default
# Debian's libblas3, /usr/lib/<multiarch>/blas; empty: none);
# OPENBLAS_NUM_THREADS (default 1); abs_top_builddir (where
# tests/has_gpu is and tests/lapack/run goes; default: the current folder).
#
# Outputs, under tests/lapack/run/MODE (plain: no shim; reference: no shim,
# the reference BLAS): one folder per
# lapack_testing.py run (summary.txt: its report and summary table;
# stderr.log; the testers' .out files), counts (one line per test family:
# precision, test, run, numerical errors, other errors, family name), bin/
# (the wrappers that start the testers) and shim/ (the shim's exit reports).

top=${abs_top_builddir:-$(pwd)}
base=$top/tests/lapack/run
modes=${TSSHIM_LAPACK_MODES-cpu auto gpu}
limit=${TSSHIM_LAPACK_TIMEOUT:-1200}
precisions=${TSSHIM_LAPACK_PRECISIONS-s d c z}
# One lapack_testing.py run per precision and family group (its -p and -t),
# longest first so that the last to start are short. "-t mixed" runs d
# (xlintstds) and z (xlintstzc) whatever -p says: one run, "x" (all).
all_units='z-eig d-eig c-eig s-eig z-lin c-lin d-lin s-lin x-mixed
z-rfp c-rfp d-rfp s-rfp'
testers='xeigtsts xeigtstd xeigtstc xeigtstz xlintsts xlintstd xlintstc
xlintstz xlintstds xlintstzc xlintstrfs xlintstrfd xlintstrfc xlintstrfz'

. "$abs_top_srcdir/tests/suite-common.sh"

# quote WORD: WORD as one single-quoted shell word.
quote() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

require_shim TSSHIM_LAPACK_MODES "$modes"
[ -n "$precisions" ] || bail "TSSHIM_LAPACK_PRECISIONS is empty"
for p in $precisions; do
    case $p in
    s | d | c | z) ;;
    *) bail "TSSHIM_LAPACK_PRECISIONS: '$p' is not s, d, c or z" ;;
    esac
done
case $limit in
*[!0-9]* | 0) bail "TSSHIM_LAPACK_TIMEOUT='$limit' is not a positive number" ;;
esac
# The runs that hold a chosen precision; the mixed one holds d and z.
units=
for u in $all_units; do
    want=${u%-*}
    [ "$want" = x ] && want='d z'
    for q in $want; do
        case " $precisions " in
        *" $q "*)
            units="$units $u"
            break
            ;;
        esac
    done
done

# The testers: a folder named by the caller must be complete; the
# package's folder, where it is absent or incomplete, means SKIP.
find_testers TSSHIM_LAPACK_TESTERS lapack_testing.py \
    "no LAPACK testers (install liblapack-test or set TSSHIM_LAPACK_TESTERS)" /usr/lib/*-linux-gnu/lapack /usr/lib/lapack
# The package keeps everything in one folder; a copy may keep the inputs
# and the script apart, in in/.
inputs=$src
[ -r "$src/lapack_testing.py" ] || [ ! -d "$src/in" ] || inputs=$src/in
missing=
[ -r "$inputs/lapack_testing.py" ] || missing=" lapack_testing.py"
for t in $testers; do
    [ -x "$src/$t" ] || missing="$missing $t"
done
if [ -n "$missing" ]; then
    [ -n "${TSSHIM_LAPACK_TESTERS:-}" ] && bail "$src lacks$missing"
    skip_all "$src lacks$missing"
fi
command -v python3 >/dev/null 2>&1 || skip_all "no python3 to run lapack_testing.py"
# A copied folder brings the testers' own libtmglib and reference LAPACK.
if [ -d "$src/lib" ]; then
    LD_LIBRARY_PATH=$src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi

jobs=${TSSHIM_LAPACK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
case $jobs in
'' | *[!0-9]* | 0) bail "TSSHIM_LAPACK_JOBS='$jobs' is not a positive number" ;;
esac
# The runs themselves share the cores, and the testers' matrices are too
# small for BLAS threads to pay: they would only compete. Plain and shim
# runs get the same setting, so the counts stay comparable.
OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OPENBLAS_NUM_THREADS

# timeout ends python, the shell and the tester of a hung run together.
suite_start

# make_wrappers MODE ASSIGNMENTS: lapack_testing.py runs the testers from
# $base/MODE/bin, where each is a script that runs the real one with the
# mode's environment; python and the shell stay without the shim.
make_wrappers() {
    mkdir -p "$base/$1/bin" || bail "cannot create $base/$1/bin"
    # lapack_testing.py says only that a tester "did not work": the
    # wrapper tells how.
    for t in $testers; do
        cat >"$base/$1/bin/$t" <<EOF || bail "cannot write $base/$1/bin/$t"
#!/bin/sh
$2 $(quote "$src/$t") "\$@"
rc=\$?
[ \$rc -eq 0 ] || echo "$t exited with status \$rc" >&2
exit \$rc
EOF
        chmod +x "$base/$1/bin/$t" || bail "cannot make $base/$1/bin/$t executable"
    done
}

# run_unit MODE UNIT: lapack_testing.py -r for one precision and family
# group in its own folder (it writes testing_results.txt into it).
# Unbuffered (-u), its report shows where a run that timed out was.
run_unit() {
    dir=$base/$1/$2
    mkdir -p "$dir" && ln -s "$inputs"/*.in "$dir/" || return
    (cd "$dir" &&
        $timeout_cmd python3 -u "$inputs/lapack_testing.py" -r -b "$base/$1/bin" \
            -d . -p "${2%-*}" -t "${2#*-}" >summary.txt 2>stderr.log)
    echo $? >"$dir/rc"
}

# run_mode MODE [UNITS]: the units (default: all), $jobs at a time. Each
# worker walks the list and runs the units it claims first (mkdir is
# atomic), so a long unit never holds up the others, and a unit runs once
# per mode however often it is asked for. Sets $seconds.
run_mode() {
    mkdir -p "$base/$1/claims"
    start=$(date +%s)
    k=0
    while [ $k -lt "$jobs" ]; do
        (for u in ${2:-$units}; do
            if mkdir "$base/$1/claims/$u" 2>/dev/null; then
                run_unit "$1" "$u"
            fi
        done) &
        k=$((k + 1))
    done
    wait
    seconds=$(($(date +%s) - start))
}

# counts MODE: one line per tester run, "PREC TEST RUN NUMERICAL OTHER
# FAMILY", from lapack_testing.py's own report of each test ("Testing NAME
# Family-xtester < x.in > TEST.out passed: N", then "failing to pass the
# threshold: N", "Illegal Error: N", "Info Error: N"; "passed" is the
# number run). TEST starts with its precision letter (dsep, zctest).
counts() {
    for u in $units; do
        [ -f "$base/$1/$u/summary.txt" ] || continue
        awk '
            /^Testing / {
                # Up to the first ">": a failed run repeats the command.
                key = ""
                for (i = 2; i < NF && key == ""; i++)
                    if ($(i + 1) == "<") {
                        fam = $i
                        sub(/-x[a-z]*$/, "", fam)
                    } else if ($i == ">")
                        key = $(i + 1)
                sub(/\.out$/, "", key)
                keys[++n] = key
                family[key] = fam
                run[key] = fail[key] = other[key] = 0
            }
            match($0, /passed: [0-9]+/) {
                run[key] = substr($0, RSTART + 8, RLENGTH - 8)
            }
            /failing to pass the threshold: / { fail[key] = $NF }
            /Illegal Error: |Info Error: / { other[key] += $NF }
            END {
                for (i = 1; i <= n; i++)
                    print substr(keys[i], 1, 1), keys[i], run[keys[i]], fail[keys[i]], other[keys[i]], family[keys[i]]
            }' "$base/$1/$u/summary.txt"
    done >"$base/$1/counts"
}

# finished MODE: every run ended and left its summary, and every tester in
# it exited with status 0 (lapack_testing.py prints "FAILED(" otherwise,
# counts nothing for it and goes on) and wrote its "End of tests".
finished() {
    status=0
    for u in $units; do
        dir=$base/$1/$u
        rc=$(cat "$dir/rc" 2>/dev/null || echo none)
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
            echo "# $u: timed out after $limit s, in: $(grep '^Testing' "$dir/summary.txt" | tail -n 1)"
            status=1
        elif [ "$rc" != 0 ]; then
            echo "# $u: lapack_testing.py exited with status $rc"
            sed -n '1,10s/^/#   /p' "$dir/stderr.log"
            status=1
        elif ! grep -q 'LAPACK TESTING SUMMARY' "$dir/summary.txt"; then
            echo "# $u: no summary table in $dir/summary.txt"
            status=1
        fi
        if grep -q 'FAILED(' "$dir/summary.txt"; then
            grep 'FAILED(' "$dir/summary.txt" |
                sed 's|.*FAILED([^ ]*/\([^ ]* <.*\) did not work.*|# \1: failed|'
            sed -n '1,10s/^/#   /p' "$dir/stderr.log"
            status=1
        fi
    done
    # Tests whose output lacks its last line stopped early.
    while read -r p test rest; do
        if ! grep -q 'End of tests' "$base/$1/"*"/$test.out" 2>/dev/null; then
            echo "# $test.out has no 'End of tests': the tester stopped early"
            status=1
        fi
    done <"$base/$1/counts"
    return $status
}

# shim_report MODE: the shim's exit reports of every tester, summed per
# routine; fails when the shim saw no call (not preloaded?), or, in gpu
# mode, ran none on the GPU.
shim_report() {
    cat "$base/$1/shim"/*.log 2>/dev/null | awk -v mode="$1" -f "$abs_top_srcdir/tests/shim-report.awk"
}

# compare MODE PREC: the counts of PREC under MODE against the plain run's,
# or, family by family, the reference BLAS run's where there is one.
compare() {
    refcounts=/dev/null
    [ -s "$base/reference/counts" ] && refcounts=$base/reference/counts
    awk -v p="$2" '
        $1 != p { next }
        FILENAME == ARGV[1] { ref[$2] = $3 " " $4 " " $5 }
        FILENAME == ARGV[2] { got[$2] = $3 " " $4 " " $5 }
        FILENAME == ARGV[3] { correct[$2] = $3 " " $4 " " $5; next }
        !(($2) in seen) { seen[$2] = 1; keys[++n] = $2; family[$2] = $6 }
        END {
            split("tests run,numerical errors,other errors", what, ",")
            for (i = 1; i <= n; i++) {
                k = keys[i]
                as_reference = (k in got) && (k in correct) && correct[k] == got[k]
                bad = bad || !(k in got) || !(k in ref) || (ref[k] != got[k] && !as_reference)
                if (!(k in got)) {
                    printf "# %s (%s): not run under the shim\n", family[k], k
                    continue
                }
                if (!(k in ref)) {
                    printf "# %s (%s): not in the plain run\n", family[k], k
                    continue
                }
                if (ref[k] == got[k])
                    continue
                split(ref[k], a, " ")
                split(got[k], b, " ")
                line = ""
                for (j = 1; j <= 3; j++)
                    if (a[j] != b[j])
                        line = line (line == "" ? "" : ", ") what[j] " " a[j] " -> " b[j]
                printf "# %s (%s): %s%s\n", family[k], k, line,
                    as_reference ? " (as with the reference BLAS)" : ""
            }
            exit bad
        }' "$base/plain/counts" "$base/$1/counts" "$refcounts"
}

refblas=${TSSHIM_LAPACK_REFBLAS-$(for d in /usr/lib/*-linux-gnu/blas; do
    [ -r "$d/libblas.so.3" ] && echo "$d" && break
done)}

# reference PREC: PREC's runs without the shim against the reference BLAS
# (once; the mixed run, which holds d and z, too), their counts added to
# $base/reference/counts. False when there is no reference BLAS.
reference() {
    [ -n "$refblas" ] && [ -r "$refblas/libblas.so.3" ] || return 1
    [ -d "$base/reference/bin" ] ||
        make_wrappers reference "LD_LIBRARY_PATH=$(quote "$refblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")"
    want=
    for u in $units; do
        case ${u%-*} in
        "$1" | x) want="$want $u" ;;
        esac
    done
    run_mode reference "$want"
    counts reference
}

# totals FILE PREC: "RUN/NUMERICAL/OTHER" of PREC in a counts file.
totals() {
    awk -v p="$2" '$1 == p { r += $3; f += $4; o += $5 }
        END { printf "%d run, %d numerical, %d other", r, f, o }' "$1"
}

n=0
nmodes=$(echo "$modes" | wc -w)
nprec=$(echo "$precisions" | wc -w)
echo "1..$((1 + nmodes * (1 + nprec)))"
echo "# testers from $src, $jobs runs at a time${timeout_cmd:+, at most $limit s each}, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS; outputs under $base"

make_wrappers plain ''
run_mode plain
counts plain
plain_point
for p in $precisions; do
    echo "# plain $p: $(totals "$base/plain/counts" "$p")"
done

for m in $modes; do
    if [ "$m" != cpu ] && [ -n "$gpu_skip" ]; then
        n=$((n + 1))
        echo "ok $n # SKIP TSSHIM_MODE=$m, every tester ran to its end: $gpu_skip"
        for p in $precisions; do
            n=$((n + 1))
            echo "ok $n # SKIP TSSHIM_MODE=$m precision $p: $gpu_skip"
        done
        continue
    fi
    # Keep what the caller preloads (a sanitizer runtime must come first).
    make_wrappers "$m" "LD_PRELOAD=$(quote "${LD_PRELOAD:+$LD_PRELOAD }${TSSHIM_PRELOAD:-$TSSHIM_LIB}") TSSHIM_MODE=$m TSSHIM_VERBOSE=1 TSSHIM_LOG=$(quote "$base/$m/shim/%p.log")"
    mkdir -p "$base/$m/shim"
    run_mode "$m"
    counts "$m"
    n=$((n + 1))
    if out=$(
        st=0
        finished "$m" || st=1
        shim_report "$m" || st=1
        exit $st
    ); then
        echo "ok $n - TSSHIM_MODE=$m: every tester ran to its end under the shim"
    else
        echo "not ok $n - TSSHIM_MODE=$m: testers failed under the shim"
    fi
    echo "# TSSHIM_MODE=$m: $(elapsed $seconds) wall"
    [ -n "$out" ] && echo "$out"
    for p in $precisions; do
        n=$((n + 1))
        if out=$(compare "$m" "$p"); then
            echo "ok $n - TSSHIM_MODE=$m precision $p: counts as in the plain run ($(totals "$base/$m/counts" "$p"))"
        elif reference "$p" && out=$(compare "$m" "$p"); then
            echo "ok $n - TSSHIM_MODE=$m precision $p: counts as in the plain run, or as with the reference BLAS ($refblas/libblas.so.3) where the system BLAS fails tests ($(totals "$base/$m/counts" "$p"))"
            echo "$out"
            echo "# reference BLAS run: $(totals "$base/reference/counts" "$p")"
        else
            echo "not ok $n - TSSHIM_MODE=$m precision $p: counts differ from the plain run"
            echo "$out"
        fi
    done
done
