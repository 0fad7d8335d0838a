#!/bin/sh
# Differential test of cblas_sgemm .. cblas_zgemm, every case in column- and
# row-major layout, with the shim preloaded in CPU mode (forwarded to the
# CPU BLAS's own CBLAS) and, where a CUDA device is usable, in GPU mode (D
# and Z only: the Fortran test covers every kernel).  The exit report must
# count the CBLAS calls: intercepted in CPU mode, offloaded in GPU mode.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/gemm_differential

check_mode() { # mode precisions
  tap_relay "mode $1" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_GEMM_FROM="$TSSHIM_LIB" TS_DIFF_API=cblas \
    TS_DIFF_PRECISIONS="$2" TSSHIM_MODE=$1 TSSHIM_MIN_LONG=256 TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/shim.$1" "$prog"
  for p in $(echo "$2" | sed 's/./& /g'); do
    line=$(grep "^tsshim: cblas_${p}gemm calls=" "$tap_tmp/shim.$1")
    calls=$(echo "$line" | sed -n 's/.* calls=\([0-9]*\).*/\1/p')
    offloaded=$(echo "$line" | sed -n 's/.* offloaded=\([0-9]*\).*/\1/p')
    if [ "$1" = gpu ]; then
      [ "${offloaded:-0}" -gt 0 ]
      tap_check $? "mode gpu: the exit report counts cblas_${p}gemm calls offloaded (${offloaded:-none})"
    else
      [ "${calls:-0}" -gt 0 ] && [ "${offloaded:-1}" -eq 0 ]
      tap_check $? "mode cpu: the exit report counts cblas_${p}gemm calls, none offloaded (${line:-no line})"
    fi
  done
}

check_mode cpu sdcz
if have_gpu; then
  check_mode gpu dz
else
  tap_skip_point "mode gpu: no CUDA device"
fi
tap_end
