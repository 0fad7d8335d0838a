#!/bin/sh
# Silent by default: the shim adds no output and changes no result, in every
# mode, with or without a GPU; a log file appears only when asked.
. "$abs_top_srcdir/tests/tap-functions.sh"

"$client" call >"$tap_tmp/plain" 2>&1
for mode in cpu auto gpu; do
  (cd "$tap_tmp" && LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=$mode "$client" call >"$tap_tmp/out" 2>"$tap_tmp/err")
  cmp -s "$tap_tmp/plain" "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
  tap_check $? "mode $mode: same output, nothing on stderr"
done
[ "$(ls "$tap_tmp" | sort | tr '\n' ' ')" = "err out plain " ]
tap_check $? "no files created when silent"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/log.%p" "$client" call >"$tap_tmp/out" 2>"$tap_tmp/err"
log=$(ls "$tap_tmp"/log.* 2>/dev/null)
[ ! -s "$tap_tmp/err" ] && [ -n "$log" ] && grep -q '^tsshim: dgemm_ calls=1 ' $log
tap_check $? "TSSHIM_LOG with %p receives the exit report ($log)"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_VERBOSE=1 env true 2>"$tap_tmp/err"
[ "$(cat "$tap_tmp/err")" = "tsshim: no BLAS calls reached the shim" ]
tap_check $? "a process without BLAS calls says so in its report"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_VERBOSE=3 TSSHIM_MODE=cpu "$client" call >/dev/null 2>"$tap_tmp/err"
grep -q '^tsshim: dgemm_ NN m=3 n=3 k=3 .* run=cpu (mode cpu)' "$tap_tmp/err"
tap_check $? "level 3 traces each call with its decision and reason"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_VERBOSE=1 TSSHIM_MODE=turbo "$client" call >/dev/null 2>"$tap_tmp/err"
grep -q 'configuration value(s) rejected' "$tap_tmp/err"
tap_check $? "a bad value is reported at verbosity 1"
tap_end
