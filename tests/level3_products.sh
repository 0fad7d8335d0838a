#!/bin/sh
# Differential test of ?symm_, ?hemm_, ?trmm_, ?syr2k_, ?her2k_ and their
# CBLAS versions (both layouts) under the shim, against OpenBLAS called
# directly (tests/level3_products.c): in cpu and auto mode, where every call
# is forwarded (or answered by the shim's quick returns and C = beta C).
# The exit report must count each routine's calls, none offloaded, and the
# trace must say why: no GPU path for these routines yet.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/level3_products

fortran='ssymm_ dsymm_ csymm_ zsymm_ chemm_ zhemm_ strmm_ dtrmm_ ctrmm_ ztrmm_ ssyr2k_ dsyr2k_ csyr2k_ zsyr2k_ cher2k_ zher2k_'
cblas=$(for r in $fortran; do printf 'cblas_%s ' "${r%_}"; done)

# Without the shim: the program against itself (OpenBLAS both sides).
tap_relay "without the shim fortran" env TS_L3_API=fortran "$prog"

for mode in cpu auto; do
  for api in fortran cblas; do
    tap_relay "mode $mode $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_FROM="$TSSHIM_LIB" TS_L3_API=$api \
      TSSHIM_MODE=$mode TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/shim.$mode.$api" "$prog"
    eval "routines=\$$api"
    check_level3_report "$tap_tmp/shim.$mode.$api" $mode $routines
  done
done

# Silent, the forwarding gate armed: the entry points' fast path (assembly on x86-64).
for api in fortran cblas; do
  tap_relay "auto mode, silent, $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_L3_API=$api "$prog"
done

# The trace: in auto and gpu mode, the reason these calls stay on the CPU.
for mode in auto gpu; do
  env LD_PRELOAD="$TSSHIM_PRELOAD" TS_L3_API=fortran TSSHIM_MODE=$mode TSSHIM_VERBOSE=3 \
    TSSHIM_LOG="$tap_tmp/trace.$mode" "$prog" >/dev/null 2>&1
  n=$(grep -c 'dsymm_.*no GPU path for this routine' "$tap_tmp/trace.$mode")
  off=$(grep '^tsshim: dsymm_ calls=' "$tap_tmp/trace.$mode" | sed -n 's/.* offloaded=\([0-9]*\).*/\1/p')
  [ "${n:-0}" -gt 0 ] && [ "${off:-1}" -eq 0 ]
  tap_check $? "mode $mode: dsymm_ forwarded, the trace says 'no GPU path for this routine' ($n calls)"
done
tap_end
