#!/bin/sh
# fork() after GEMMs in gpu mode (fork_child.c): the child computes on the
# CPU, correctly, tracing to its own log; the parent stays on the GPU.
# Without a CUDA device the same program checks the CPU path.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"

if have_gpu; then gpu=gpu; else gpu=nogpu; fi
tap_relay "mode gpu ($gpu)" env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=256 \
  TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/log.%p" "$abs_top_builddir/tests/fork_child" $gpu
tap_end
