#!/bin/sh
# NaN and Inf propagation as OpenBLAS's, every alpha/beta case (nan_inf.c):
# in cpu mode, and in gpu mode where a CUDA device is usable.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/nan_inf

tap_relay "mode cpu" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=cpu TSSHIM_MIN_LONG=64 "$prog"
if have_gpu; then
  tap_relay "mode gpu" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=64 "$prog"
else
  tap_skip_point "no CUDA device"
fi
tap_end
