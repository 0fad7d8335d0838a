#!/bin/sh
# Without a usable GPU (none hidden by CUDA_VISIBLE_DEVICES, or none at all)
# every call is forwarded, with the same results and no output.
. "$abs_top_srcdir/tests/tap-functions.sh"

"$client" call >"$tap_tmp/plain" 2>&1
for mode in auto gpu; do
  CUDA_VISIBLE_DEVICES= LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=$mode "$client" call >"$tap_tmp/out" 2>"$tap_tmp/err"
  cmp -s "$tap_tmp/plain" "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
  tap_check $? "mode $mode, no visible device: same result, silent"
done
CUDA_VISIBLE_DEVICES= LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=gpu TSSHIM_VERBOSE=3 "$client" call >/dev/null 2>"$tap_tmp/err"
grep -q 'run=cpu (no usable GPU)' "$tap_tmp/err" && grep -q 'dgemm_ calls=1 offloaded=0 ' "$tap_tmp/err"
tap_check $? "the trace and report say the call was forwarded for lack of a GPU"
tap_end
