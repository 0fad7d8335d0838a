#!/bin/sh
# Device, managed, pinned and pageable operands through the shim on a GPU
# (tests/residency_gpu.c): with the default staging, with 1 MB of staging
# (hundreds of slices per call, many pieces per slice), and with the last
# slice's kernel failing (fault-injection builds): the slices already back
# stay, the CPU computes the rest.  The operand cache is off: the program
# checks the bytes each call sends, which a cached operand does not
# (tests/cache_mutations.sh tests the cache).
. "$abs_top_srcdir/tests/tap-functions.sh"
prog=$abs_top_builddir/tests/residency_gpu

# run LABEL STAGING_MB FAULT: the program's TAP lines, relabelled.
run() {
  rm -f "$tap_tmp/log"
  TSSHIM_CACHE=0 TSSHIM_STAGING_MB=$2 TSSHIM_FAULT=$3 TSSHIM_MODE=gpu TSSHIM_MIN_LONG=512 TSSHIM_VERBOSE=3 \
    TSSHIM_LOG=$tap_tmp/log LD_PRELOAD=$TSSHIM_PRELOAD "$prog" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  skip=$(sed -n 's/^1\.\.0 # SKIP //p' "$tap_tmp/out")
  [ -z "$skip" ] || tap_skip_all "$skip"
  while IFS= read -r line; do
    case $line in
      "ok "*) tap_check 0 "$1: ${line#ok * - }" ;;
      "not ok "*) tap_check 1 "$1: ${line#not ok * - }" ;;
    esac
  done <"$tap_tmp/out"
  [ "$status" -eq 0 ] && [ ! -s "$tap_tmp/err" ]
  tap_check $? "$1: exit status 0 ($status), nothing on stderr"
}

run "staging 256 MB" 256 ""
run "staging 1 MB" 1 ""
grep -q 'run=gpu' "$tap_tmp/log" && ! grep -q 'GPU failed' "$tap_tmp/log"
tap_check $? "staging 1 MB: every call ran on the GPU"
run "staging 1 MB, last kernel fails" 1 late_kernel
if grep -q '^#define TSSHIM_FAULT_INJECTION 1' "$abs_top_builddir/config.h"; then
  grep -q 'path=gpu+cpu' "$tap_tmp/log"
  tap_check $? "the failed slices were computed on the CPU (path=gpu+cpu in the trace)"
fi
tap_end
