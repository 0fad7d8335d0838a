#!/bin/sh
# When the GPU path fails, the call is computed on the CPU: results as
# OpenBLAS's, nothing printed at verbosity 0, exactly one warning at verbosity
# 1 however many calls fail.  The client is threads_stress on one thread: 10
# checked shapes (dgemm_, zgemm_; host operands), each called twice.
#  (a) no visible device (tests/no_gpu.sh covers the 3x3 call; this covers
#      the tall shapes and the one-warning rule);
#  (b) GPU memory: TSSHIM_GPU_MEM_LIMIT=1 (MB) below the tall calls' needs,
#      and a real allocation failure (TSSHIM_FAULT=alloc);
#  (c) TSSHIM_FAULT=copy, kernel and copy_back, and pin (the pipeline's
#      pinned staging ring cannot be had).
# TSSHIM_FAULT works only in builds configured with --enable-fault-injection.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
stress=$abs_top_builddir/tests/threads_stress

# run_stress VAR=VALUE...: one thread, two rounds, under the shim in gpu mode.
# A run that does not exit cleanly is repeated with a trace, whose last lines
# (the calls before the failure, the pipeline's phases) go to the log.
run_stress() {
  env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=256 "$@" "$stress" 1 2 \
    >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  sed 's/^/# /' "$tap_tmp/err"
  [ $status -eq 0 ] || trace_failure "$@"
}
trace_failure() {
  echo "# exit status $status with $*; TAP output:"
  grep -v '^ok' "$tap_tmp/out" | head -n 10 | sed 's/^/#   /'
  rm -f "$tap_tmp/trace"
  env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=256 "$@" TSSHIM_VERBOSE=3 \
    TSSHIM_LOG="$tap_tmp/trace" "$stress" 1 2 >/dev/null 2>"$tap_tmp/trace.err"
  echo "# the same run traced (exit status $?), last lines:"
  tail -n 12 "$tap_tmp/trace" 2>/dev/null | sed 's/^/#   /'
  tail -n 5 "$tap_tmp/trace.err" | sed 's/^/#   stderr: /'
}
results_ok() {
  [ $status -eq 0 ] && grep -q '^1\.\.[1-9]' "$tap_tmp/out" && ! grep -q '^not ok' "$tap_tmp/out"
}
# The shim's lines on stderr other than its exit report (a line per
# routine, the operand cache's line).
warnings() { grep '^tsshim: ' "$tap_tmp/err" | grep -vcE '^tsshim: ([a-z0-9_]+ calls=|cache (hits=|unavailable: )|device [0-9]+ runs=)'; }
# Fallbacks counted in the exit report for dgemm_ and zgemm_ (verbosity >= 1).
fell_back() {
  grep -Eq '^tsshim: dgemm_ calls=[0-9]+ offloaded=[0-9]+ fallbacks=[1-9]' "$tap_tmp/err" &&
    grep -Eq '^tsshim: zgemm_ calls=[0-9]+ offloaded=[0-9]+ fallbacks=[1-9]' "$tap_tmp/err"
}

# check_fallback WHAT VAR=VALUE...: three points for one kind of failure.
check_fallback() {
  what=$1
  shift
  run_stress "$@"
  results_ok && [ ! -s "$tap_tmp/err" ]
  tap_check $? "$what: results match OpenBLAS, nothing printed at verbosity 0 (status $status)"
  run_stress TSSHIM_VERBOSE=1 "$@"
  results_ok && [ "$(warnings)" -eq 1 ] && fell_back
  tap_check $? "$what: at verbosity 1 exactly one warning ($(warnings)) and the report counts the fallbacks"
  run_stress TSSHIM_VERBOSE=2 "$@"
  results_ok && [ "$(grep -c 'GPU execution of .* failed' "$tap_tmp/err")" -gt 1 ]
  tap_check $? "$what: at verbosity 2 every fallback is logged"
}

# skip_fallback REASON: the three points of check_fallback, skipped.
skip_fallback() {
  tap_skip_point "$1"
  tap_skip_point "$1"
  tap_skip_point "$1"
}

[ -x "$stress" ] || tap_skip_all "threads_stress not built"

run_stress CUDA_VISIBLE_DEVICES=
results_ok && [ ! -s "$tap_tmp/err" ]
tap_check $? "no visible device, mode gpu: tall and small shapes match OpenBLAS, nothing printed"
run_stress CUDA_VISIBLE_DEVICES= TSSHIM_VERBOSE=1
results_ok && [ "$(warnings)" -eq 1 ]
tap_check $? "no visible device, verbosity 1: exactly one line about it for 20 calls (got $(warnings))"

if have_gpu; then gpu=yes; else gpu=; fi
if grep -q '^#define TSSHIM_FAULT_INJECTION 1' "$abs_top_builddir/config.h" 2>/dev/null; then
  faults=yes
else
  faults=
fi

if [ -n "$gpu" ]; then
  check_fallback "TSSHIM_GPU_MEM_LIMIT=1" TSSHIM_GPU_MEM_LIMIT=1
else
  skip_fallback "no CUDA device"
fi
for stage in alloc copy kernel copy_back pin; do
  if [ -z "$faults" ]; then
    skip_fallback "TSSHIM_FAULT needs a build configured with --enable-fault-injection"
  elif [ -z "$gpu" ]; then
    skip_fallback "no CUDA device"
  else
    check_fallback "TSSHIM_FAULT=$stage" TSSHIM_FAULT=$stage
  fi
done
tap_end
