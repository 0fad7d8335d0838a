#!/bin/sh
# Invalid arguments reach the CPU BLAS's own xerbla: output and exit status are
# those of the program without the shim, in every mode.
. "$abs_top_srcdir/tests/tap-functions.sh"

for arg in 1 2 3 8 10 13; do
  "$client" bad $arg >"$tap_tmp/plain" 2>&1
  plain_status=$?
  for mode in cpu auto gpu; do
    LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=$mode "$client" bad $arg >"$tap_tmp/shim" 2>&1
    shim_status=$?
    [ $plain_status -eq $shim_status ] && cmp -s "$tap_tmp/plain" "$tap_tmp/shim" && grep -q "$arg" "$tap_tmp/plain"
    tap_check $? "bad argument $arg, mode $mode: same xerbla report and status ($plain_status) as without the shim"
  done
done
tap_end
