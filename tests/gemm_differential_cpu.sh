#!/bin/sh
# Differential GEMM test with the shim preloaded in CPU mode: every call is
# forwarded to the CPU BLAS, so the results must match OpenBLAS.  TAP on
# stdout.  TSSHIM_MIN_LONG is low so that the tall classes are reached with
# small data (the program reads the same variable).

: "${abs_top_builddir:=.}"
if [ ! -f "${TSSHIM_LIB:-}" ]; then
    echo "Bail out! TSSHIM_LIB does not name the built libtsshim.so"
    exit 1
fi
exec env LD_PRELOAD="${TSSHIM_PRELOAD:-$TSSHIM_LIB}" TS_EXPECT_GEMM_FROM="$TSSHIM_LIB" \
    TSSHIM_MODE=cpu TSSHIM_MIN_LONG=256 \
    "$abs_top_builddir/tests/gemm_differential"
