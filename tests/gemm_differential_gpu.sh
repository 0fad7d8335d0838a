#!/bin/sh
# Differential GEMM test with the shim forcing every eligible call onto the
# GPU (TSSHIM_MODE=gpu), plus one test point of its own: the shim's exit
# report must show offloaded calls for each routine, so that a run silently
# falling back to the CPU cannot pass.  Skipped where no CUDA device is
# usable.  TAP on stdout.

: "${abs_top_builddir:=.}"
bin=$abs_top_builddir/tests
if ! "$bin/has_gpu"; then
    echo "1..0 # SKIP no CUDA device"
    exit 0
fi
if [ ! -f "${TSSHIM_LIB:-}" ]; then
    echo "Bail out! TSSHIM_LIB does not name the built libtsshim.so"
    exit 1
fi
shimlog=$bin/gemm_differential_gpu.shimlog
out=$bin/gemm_differential_gpu.out
rm -f "$shimlog" "$out"

# Offloaded calls of routine $1 in the shim's exit report $2, from lines like
# "tsshim: dgemm_ calls=N offloaded=M gpu_s=X h2d_bytes=Y d2h_bytes=Z";
# prints nothing when the routine has no such line.
offloaded() {
    sed -n "s/^tsshim: $1 calls=[0-9]* offloaded=\([0-9][0-9]*\).*/\1/p" \
        "$2" 2>/dev/null | tail -n 1
}

env LD_PRELOAD="${TSSHIM_PRELOAD:-$TSSHIM_LIB}" TS_EXPECT_GEMM_FROM="$TSSHIM_LIB" \
    TSSHIM_MODE=gpu TSSHIM_MIN_LONG=512 TSSHIM_VERBOSE=1 \
    TSSHIM_LOG="$shimlog" "$bin/gemm_differential" >"$out"
status=$?

# The program's trailing plan is dropped: the plan comes after our point.
grep -v '^1\.\.[0-9]*$' "$out"
n=$(($(grep -c -E '^(not )?ok' "$out") + 1))
missing=
for routine in sgemm_ dgemm_ cgemm_ zgemm_; do
    count=$(offloaded "$routine" "$shimlog")
    [ "${count:-0}" -gt 0 ] || missing="$missing $routine"
done
if [ -z "$missing" ]; then
    echo "ok $n - exit report: offloaded calls > 0 for sgemm_ .. zgemm_"
else
    echo "not ok $n - exit report: no offloaded calls for$missing"
    [ -f "$shimlog" ] && sed 's/^/# /' "$shimlog"
fi
echo "1..$n"
exit $status
