#!/bin/sh
# Differential test of ?syrk_, ?herk_, ?trsm_ and their CBLAS versions (both
# layouts) under the shim: in cpu mode (every call forwarded or computed by
# the shim's own quick returns and scaling) and, where a CUDA device is
# usable, in gpu mode.  The exit report must count each routine's calls:
# none offloaded in cpu mode, some in gpu mode.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/level3_differential

fortran='ssyrk_ dsyrk_ csyrk_ zsyrk_ cherk_ zherk_ strsm_ dtrsm_ ctrsm_ ztrsm_'
cblas='cblas_ssyrk cblas_dsyrk cblas_csyrk cblas_zsyrk cblas_cherk cblas_zherk cblas_strsm cblas_dtrsm cblas_ctrsm cblas_ztrsm'

run_mode() { # mode long
  for api in fortran cblas; do
    tap_relay "mode $1 $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_L3_FROM="$TSSHIM_LIB" TS_L3_API=$api \
      TSSHIM_MODE=$1 TSSHIM_MIN_LONG=$2 TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/shim.$1.$api" "$prog"
    eval "routines=\$$api"
    check_level3_report "$tap_tmp/shim.$1.$api" "$1" $routines
  done
}

run_mode cpu 256
if have_gpu; then
  run_mode gpu 512
else
  tap_skip_point "mode gpu: no CUDA device"
fi
tap_end
