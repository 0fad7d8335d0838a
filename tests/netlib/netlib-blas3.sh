#!/bin/sh
# TAP test: the netlib level-3 BLAS testers (sblat3 dblat3 cblat3 zblat3,
# with their standard input files) run under LD_PRELOAD of libtsshim.so, once
# with TSSHIM_MODE=cpu and once with every call sent to the GPU (where there
# is one). Each run must pass all its checks, error exits included, and
# print nothing; the shim's exit report must show that it saw the tester's
# ?gemm_, ?syrk_, ?trsm_ (and ?herk_) calls and ran none (cpu) or some and
# never fell back (gpu) on the GPU. A last point checks that the summary checker rejects damaged copies
# of a passing summary, so that a pass means something.
#
# Environment: TSSHIM_LIB (the shim, required); TSSHIM_NETLIB_BIN (a folder
# of prebuilt testers and .in files from make-prebuilt.sh: no build); else
# TSSHIM_NETLIB_SRC (default: the cache tests/netlib/src), FC, FCFLAGS,
# BLAS_LIBS as make-prebuilt.sh reads them; TSSHIM_NETLIB_TIMEOUT (seconds
# per run, default 600); abs_top_builddir (where src/, bin/, run/ and
# build.log go, under tests/netlib/; default: the current directory).

here=$(cd "$(dirname "$0")" && pwd)
top=${abs_top_builddir:-$(pwd)}
base=$top/tests/netlib
testers='sblat3 dblat3 cblat3 zblat3'
gpu_env='TSSHIM_MODE=gpu TSSHIM_MIN_LONG=1 TSSHIM_MAX_SKINNY=100000 TSSHIM_MIN_FLOPS=0'

bail() {
    echo "Bail out! $*"
    exit 1
}

diag_file() {
    sed -n "1,${2:-20}s/^/# /p" "$1"
}

if [ -z "${TSSHIM_LIB:-}" ] || [ ! -f "$TSSHIM_LIB" ]; then
    bail "TSSHIM_LIB='${TSSHIM_LIB:-}' is not a file"
fi
mkdir -p "$base" || bail "cannot create $base"

if [ -n "${TSSHIM_NETLIB_BIN:-}" ]; then
    bin=$TSSHIM_NETLIB_BIN
else
    bin=$base/bin
    reason=$(TSSHIM_NETLIB_SRC=${TSSHIM_NETLIB_SRC:-$base/src} \
        sh "$here/make-prebuilt.sh" "$bin" 2>"$base/build.log")
    case $? in
    0) ;;
    77)
        echo "1..0 # SKIP $reason"
        exit 0
        ;;
    *)
        diag_file "$base/build.log"
        bail "building the testers failed (see $base/build.log)"
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

echo "1..9"
if [ -r "$bin/VERSION" ]; then
    echo "# testers from $(cat "$bin/VERSION"), outputs under $base/run"
fi

n=0
passed_summary=
passed_input=

# check_report LOG ROUTINE MODE: the shim's exit report on ROUTINE_ (lines
# "tsshim: dgemm_ calls=N offloaded=N fallbacks=N ...") fits MODE.
check_report() {
    awk -v r="$2_" -v mode="$3" '
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

# run_one MODE TESTER VAR=VALUE...: one tester in its own folder, its
# summary file named by the first record of its input.
run_one() {
    mode=$1
    t=$2
    shift 2
    n=$((n + 1))
    dir=$base/run/$mode/$t
    rm -rf "$dir" && mkdir -p "$dir" && cp "$bin/$t.in" "$dir/" ||
        bail "cannot prepare $dir"
    summary=$dir/$(sed -n "1s/^ *'\([^']*\)'.*/\1/p" "$dir/$t.in")
    # Keep what the caller preloads (a sanitizer runtime must come first).
    (cd "$dir" &&
        $timeout_cmd env "$@" TSSHIM_VERBOSE=1 TSSHIM_LOG="$dir/tsshim.log" \
            LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }${TSSHIM_PRELOAD:-$TSSHIM_LIB}" \
            "$bin/$t" <"$t.in" >output 2>&1)
    rc=$?
    ok=yes
    if [ $rc -eq 124 ] && [ -n "$timeout_cmd" ]; then
        echo "# $t timed out ($timeout_cmd)"
        ok=no
    elif [ $rc -ne 0 ]; then
        echo "# $t exited with status $rc"
        ok=no
    fi
    # The summary goes to its own file: anything else is the shim (or the
    # loader) speaking, which it must not do unasked.
    if [ -s "$dir/output" ]; then
        echo "# $t printed:"
        diag_file "$dir/output"
        ok=no
    fi
    sh "$here/check-blat3-summary.sh" "$summary" "$dir/$t.in" || ok=no
    if [ ! -r "$dir/tsshim.log" ]; then
        echo "# the shim wrote no report to $dir/tsshim.log"
        ok=no
    else
        # Every routine of the tester the shim intercepts.
        p=$(echo "$t" | cut -c1)
        routines="${p}gemm ${p}syrk ${p}trsm"
        case $p in c | z) routines="$routines ${p}herk" ;; esac
        for r in $routines; do
            if ! check_report "$dir/tsshim.log" "$r" "$mode"; then
                diag_file "$dir/tsshim.log"
                ok=no
            fi
        done
    fi
    if [ $ok = yes ]; then
        echo "ok $n - $t TSSHIM_MODE=$mode"
        if [ -z "$passed_summary" ]; then
            passed_summary=$summary
            passed_input=$dir/$t.in
        fi
    else
        echo "not ok $n - $t TSSHIM_MODE=$mode (see $dir)"
    fi
}

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
    damaged=$base/run/damaged.summ
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
        '!d && /PASSED THE COMPUTATIONAL TESTS/ { d = 1; next } 1' &&
    rejects "no END OF TESTS" '!/END OF TESTS/' &&
    rejects "an error-exit failure" \
        '1; /PASSED THE TESTS OF ERROR-EXITS/ && !d { d = 1; print " ***** ILLEGAL VALUE OF PARAMETER NUMBER  1 NOT DETECTED BY XGEMM  *****" }' &&
    rejects "a SUSPECT test ratio" \
        '1; END { print " ******* BUT WITH MAXIMUM TEST RATIO   99.00 - SUSPECT *******" }'; then
    echo "ok $n - the summary checker rejects damaged summaries"
else
    echo "not ok $n - the summary checker rejects damaged summaries"
fi
