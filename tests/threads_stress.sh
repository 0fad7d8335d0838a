#!/bin/sh
# 16 threads calling dgemm_ and zgemm_ at once under the shim, mixed shapes,
# repeated (threads_stress.c): in cpu mode always; in gpu mode, with pageable,
# pinned and device operands, where a CUDA device is usable.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
bin=$abs_top_builddir/tests

tap_relay "mode cpu" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=cpu TSSHIM_MIN_LONG=256 "$bin/threads_stress"
if ! have_gpu; then
  tap_skip_point "no CUDA device"
elif [ ! -x "$bin/threads_stress_cuda" ]; then
  tap_skip_point "threads_stress_cuda not built (configured without CUDA)"
else
  tap_relay "mode gpu" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=256 "$bin/threads_stress_cuda"
fi
tap_end
