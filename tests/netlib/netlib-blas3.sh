#!/bin/sh
# TAP test: the level-3 BLAS testers of LAPACK, each with its standard input
# file, once without the shim, once under LD_PRELOAD of libtsshim.so with
# TSSHIM_MODE=cpu and once with every call sent to the GPU (where there is
# one). SET (the argument) blas3, the default: the netlib testers sblat3
# dblat3 cblat3 zblat3 (?gemm_, ?symm_, ?hemm_, ?syrk_, ?herk_, ?syr2k_,
# ?her2k_, ?trmm_, ?trsm_); cblas3
# (netlib-cblas3.sh): the CBLAS testers c_sblat3 ... c_zblat3 (cblas_?gemm
# ...). Each run must pass all its checks, error exits included (or, where
# the run without the shim fails some, fail exactly those) and print nothing
# but its summary; the shim's exit report must show that it saw the tester's
# calls of each routine and ran none (cpu) or some and never fell back (gpu)
# on the GPU. A last point checks that the summary checker
# rejects damaged copies of a passing summary, so that a pass means
# something.
#
# Environment: TSSHIM_LIB (the shim, required); TSSHIM_NETLIB_BIN (a folder
# of prebuilt testers and .in files from make-prebuilt.sh: no build); else
# TSSHIM_NETLIB_SRC (default: the cache tests/netlib/src), FC, FCFLAGS, CC,
# CFLAGS, BLAS_LIBS as make-prebuilt.sh reads them; TSSHIM_NETLIB_TIMEOUT
# (seconds per run, default 600); abs_top_builddir (where src/, bin-SET/,
# run/ and build-SET.log go, under tests/netlib/; default: the current
# directory).

testset=${1:-blas3}
here=$(cd "$(dirname "$0")" && pwd)
top=${abs_top_builddir:-$(pwd)}
base=$top/tests/netlib
gpu_env='TSSHIM_MODE=gpu TSSHIM_MIN_LONG=1 TSSHIM_MAX_SKINNY=100000 TSSHIM_MIN_FLOPS=0'

bail() {
    echo "Bail out! $*"
    exit 1
}

diag_file() {
    sed -n "1,${2:-20}s/^/# /p" "$1"
}

# The testers; routine_name ROUTINE (dgemm, zherk, ...): the name their
# calls have in the shim's exit report.
case $testset in
blas3)
    testers='sblat3 dblat3 cblat3 zblat3'
    routine_name() { echo "${1}_"; }
    ;;
cblas3)
    testers='c_sblat3 c_dblat3 c_cblat3 c_zblat3'
    routine_name() { echo "cblas_$1"; }
    ;;
*) bail "unknown set '$testset' (blas3 or cblas3)" ;;
esac

if [ -z "${TSSHIM_LIB:-}" ] || [ ! -f "$TSSHIM_LIB" ]; then
    bail "TSSHIM_LIB='${TSSHIM_LIB:-}' is not a file"
fi
mkdir -p "$base" || bail "cannot create $base"

if [ -n "${TSSHIM_NETLIB_BIN:-}" ]; then
    bin=$TSSHIM_NETLIB_BIN
else
    bin=$base/bin-$testset
    reason=$(TSSHIM_NETLIB_SRC=${TSSHIM_NETLIB_SRC:-$base/src} \
        sh "$here/make-prebuilt.sh" "$bin" "$testset" 2>"$base/build-$testset.log")
    case $? in
    0) ;;
    77)
        echo "1..0 # SKIP $reason"
        exit 0
        ;;
    *)
        diag_file "$base/build-$testset.log"
        bail "building the testers failed (see $base/build-$testset.log)"
        ;;
    esac
fi
bin=$(cd "$bin" && pwd) || bail "no folder $bin"
for t in $testers; do
    [ -x "$bin/$t" ] && [ -r "$bin/$t.in" ] || bail "$bin lacks $t or $t.in"
done

timeout_cmd=
if command -v timeout >/dev/null 2>&1; then
    timeout_cmd="timeout ${TSSHIM_NETLIB_TIMEOUT:-600}"
fi

no_gpu=
if [ "${CUDA_VISIBLE_DEVICES-unset}" = "" ]; then
    no_gpu="CUDA_VISIBLE_DEVICES is empty"
elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
    no_gpu="no CUDA device (nvidia-smi -L finds none)"
fi

echo "1..13"
if [ -r "$bin/VERSION" ]; then
    echo "# testers from $(cat "$bin/VERSION"), outputs under $base/run"
fi

n=0
passed_summary=
passed_input=

# check_report LOG NAME MODE: the shim's exit report on the routine NAME
# (lines "tsshim: dgemm_ calls=N offloaded=N fallbacks=N ...") fits MODE.
check_report() {
    awk -v r="$2" -v mode="$3" '
        $1 == "tsshim:" && $2 == r {
            for (i = 3; i <= NF; i++) {
                split($i, kv, "=")
                v[kv[1]] = kv[2]
            }
            found = 1
            print "# " substr($0, 9)
        }
        END {
            if (!found || v["calls"] == 0)
                why = "the shim saw no " r " call"
            else if (mode == "cpu" && v["offloaded"] != 0)
                why = v["offloaded"] " calls ran on the GPU in cpu mode"
            else if (mode == "gpu" && v["offloaded"] == 0)
                why = "no call ran on the GPU"
            else if (v["fallbacks"] != 0)
                why = v["fallbacks"] " calls fell back to the CPU"
            if (why != "") {
                print "# " why
                exit 1
            }
        }' "$1"
}

# verdict DIR: the checker's findings on the run of $t in DIR, with paths
# relative to DIR and numbers left out (call numbers and test ratios differ
# from run to run on the GPU).
verdict() {
    (cd "$1" && sh "$here/check-blat3-summary.sh" "${summary##*/}" "$t.in") |
        sed 's/[0-9][0-9.]*//g'
}

# run_one MODE TESTER VAR=VALUE...: one tester in its own folder, without
# the shim (MODE plain) or under it.
run_one() {
    mode=$1
    t=$2
    shift 2
    n=$((n + 1))
    dir=$base/run/$mode/$t
    rm -rf "$dir" && mkdir -p "$dir" && cp "$bin/$t.in" "$dir/" ||
        bail "cannot prepare $dir"
    # The netlib testers write their summary to the file the input's first
    # record names; the CBLAS testers to stdout.
    if [ "$testset" = blas3 ]; then
        summary=$dir/$(sed -n "1s/^ *'\([^']*\)'.*/\1/p" "$dir/$t.in")
    else
        summary=$dir/stdout
    fi
    # Keep what the caller preloads (a sanitizer runtime must come first).
    preload=${LD_PRELOAD:-}
    if [ "$mode" != plain ]; then
        preload="${LD_PRELOAD:+$LD_PRELOAD }${TSSHIM_PRELOAD:-$TSSHIM_LIB}"
        set -- "$@" TSSHIM_VERBOSE=1 TSSHIM_LOG="$dir/tsshim.log"
    fi
    (cd "$dir" &&
        $timeout_cmd env "$@" LD_PRELOAD="$preload" \
            "$bin/$t" <"$t.in" >stdout 2>stderr)
    rc=$?
    ok=yes
    if [ $rc -eq 124 ] && [ -n "$timeout_cmd" ]; then
        echo "# $t timed out ($timeout_cmd)"
        ok=no
    elif [ $rc -ne 0 ]; then
        echo "# $t exited with status $rc"
        ok=no
    fi
    # Anything besides the summary is the shim (or the loader) speaking,
    # which it must not do unasked.
    for f in "$dir/stdout" "$dir/stderr"; do
        if [ "$f" != "$summary" ] && [ -s "$f" ]; then
            echo "# $t printed on $(basename "$f"):"
            diag_file "$f"
            ok=no
        fi
    done
    plain=$base/run/plain/$t
    if [ "$mode" = plain ]; then
        label="$t without the shim"
        sh "$here/check-blat3-summary.sh" "$summary" "$dir/$t.in" || ok=no
        if [ $ok = no ]; then
            # Not the shim's fault: the runs under it must fail alike.
            : >"$dir/failed"
            ok=todo
        fi
    else
        label="$t TSSHIM_MODE=$mode"
        if ! sh "$here/check-blat3-summary.sh" "$summary" "$dir/$t.in"; then
            if [ -e "$plain/failed" ] &&
                [ "$(verdict "$dir")" = "$(verdict "$plain")" ]; then
                echo "# the same findings as without the shim"
            else
                ok=no
            fi
        fi
        if [ ! -r "$dir/tsshim.log" ]; then
            echo "# the shim wrote no report to $dir/tsshim.log"
            ok=no
        else
            # Every routine of the tester the shim intercepts.
            p=$(echo "${t#c_}" | cut -c1)
            routines="${p}gemm ${p}symm ${p}syrk ${p}syr2k ${p}trmm ${p}trsm"
            case $p in c | z) routines="$routines ${p}hemm ${p}herk ${p}her2k" ;; esac
            for r in $routines; do
                if ! check_report "$dir/tsshim.log" "$(routine_name "$r")" \
                    "$mode"; then
                    diag_file "$dir/tsshim.log"
                    ok=no
                fi
            done
        fi
    fi
    case $ok in
    yes)
        echo "ok $n - $label"
        if [ -z "$passed_summary" ] && [ ! -e "$plain/failed" ]; then
            passed_summary=$summary
            passed_input=$dir/$t.in
        fi
        ;;
    todo)
        echo "not ok $n - $label (see $dir) # TODO the system BLAS fails it"
        ;;
    *) echo "not ok $n - $label (see $dir)" ;;
    esac
}

for t in $testers; do
    run_one plain "$t"
done
for t in $testers; do
    run_one cpu "$t" TSSHIM_MODE=cpu
done
for t in $testers; do
    if [ -n "$no_gpu" ]; then
        n=$((n + 1))
        echo "ok $n # SKIP $t TSSHIM_MODE=gpu: $no_gpu"
    else
        # gpu_env splits into its assignments.
        run_one gpu "$t" $gpu_env
    fi
done

# rejects DESCRIPTION AWK-PROGRAM: the checker must refuse the passing
# summary as changed by the awk program.
rejects() {
    damaged=$base/run/damaged-$testset
    awk "$2" "$passed_summary" >"$damaged"
    if sh "$here/check-blat3-summary.sh" "$damaged" "$passed_input" >/dev/null; then
        echo "# the checker accepted a summary with $1"
        return 1
    fi
}

n=$((n + 1))
if [ -z "$passed_summary" ]; then
    echo "ok $n # SKIP no passing summary to damage"
elif rejects "a routine's computational result missing" \
        '!d && /PASSED THE .*COMPUTATIONAL TESTS/ { d = 1; next } 1' &&
    rejects "no END OF TESTS" '!/END OF TESTS/' &&
    rejects "an error-exit failure" \
        '1; /PASSED THE TESTS OF ERROR-EXITS/ && !d { d = 1; print " ***** ILLEGAL VALUE OF PARAMETER NUMBER  1 NOT DETECTED BY XGEMM  *****" }' &&
    rejects "a SUSPECT test ratio" \
        '1; END { print " ******* BUT WITH MAXIMUM TEST RATIO   99.00 - SUSPECT *******" }'; then
    echo "ok $n - the summary checker rejects damaged summaries"
else
    echo "not ok $n - the summary checker rejects damaged summaries"
fi
