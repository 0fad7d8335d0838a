#!/bin/sh
# compute-sanitizer over every GPU test program, on a host with a CUDA device:
# one TAP point per tool and program, ok when the tool reports 0 errors and
# the program itself passes.  Run it from a build directory configured
# without --enable-sanitizers (ASan and compute-sanitizer do not mix), e.g.
# "make check-compute-sanitizer", or directly:
#   tests/run-compute-sanitizer.sh [TOOL...]   (default: memcheck racecheck synccheck)
# COMPUTE_SANITIZER names the binary (default: from PATH, else
# /usr/local/cuda/bin).  Each program run is bounded by CS_TIMEOUT seconds
# (default 300): a run that takes longer is a failed point, not a hang.
: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TSSHIM_LIB:=$abs_top_builddir/.libs/libtsshim.so}"
: "${TSSHIM_PRELOAD:=$TSSHIM_LIB}"
: "${CS_TIMEOUT:=300}"
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
bin=$abs_top_builddir/tests

sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || tap_skip_all "compute-sanitizer not found (set COMPUTE_SANITIZER)"
have_gpu || tap_skip_all "no CUDA device"
[ $# -gt 0 ] || set -- memcheck racecheck synccheck

# check TOOL PROGRAM [ARG...]: one point.  PROGRAM (in tests/) runs under
# the shim in gpu mode with TSSHIM_MIN_LONG=$min_long, except test_kernels,
# which calls the kernels itself; fork_child also needs its per-process
# trace.  The report goes to a log file so that the program's own TAP stays
# apart.
check() {
  tool=$1
  prog=$2
  shift 2
  args=$*
  if [ ! -x "$bin/$prog" ]; then
    tap_skip_point "$tool: $prog not built"
    return
  fi
  targets=all
  case $prog in
    test_kernels)
      # racecheck is far slower than the other tools: one instance per class,
      # precision and thread mapping covers every shared-memory pattern.
      if [ "$tool" = racecheck ]; then
        set -- env TSK_TEST_ONLY="$racecheck_kernels" "$bin/$prog" "$@"
      else
        set -- "$bin/$prog" "$@"
      fi
      ;;
    fork_child)
      # The child uses no GPU by design, and CUDA state does not survive
      # fork: the tool checks the parent only.
      targets=application-only
      rm -f "$tap_tmp"/trace.*
      set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long TSSHIM_VERBOSE=3 \
        TSSHIM_LOG="$tap_tmp/trace.%p" "$bin/$prog" "$@"
      ;;
    *) set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long "$bin/$prog" "$@" ;;
  esac
  log=$tap_tmp/$tool.log
  rm -f "$log"
  timeout "$CS_TIMEOUT" "$sanitizer" --tool "$tool" --error-exitcode 86 --target-processes $targets \
    --log-file "$log" "$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  [ $status -ne 124 ] || echo "# $tool: $prog killed after $CS_TIMEOUT s"
  # A program that starts CUDA in a library constructor runs before the tool
  # can attach: the tool reports that as its one error and checks nothing.
  if grep -q 'CUDA initialized before the Sanitizer' "$log" 2>/dev/null; then
    tap_skip_point "$tool: $prog starts CUDA before compute-sanitizer can attach (covered without the tool)"
    return
  fi
  # One summary per traced process: all must report 0 errors (racecheck
  # words its summary differently).
  summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" 2>/dev/null | tail -n 1)
  [ $status -eq 0 ] && [ -n "$summary" ] &&
    ! grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | grep -Eqv ' 0 errors|\(0 errors' &&
    ! grep -q '^not ok\| FAIL ' "$tap_tmp/out"
  result=$?
  if [ $result -ne 0 ]; then
    head -n 40 "$log" 2>/dev/null | sed 's/^/# /'
    grep '^not ok\| FAIL \|^Bail out' "$tap_tmp/out" | head -n 10 | sed 's/^/# /'
    head -n 10 "$tap_tmp/err" | sed 's/^/# stderr: /'
  fi
  tap_check $result "$tool: $prog${args:+ $args} (status $status; ${summary#========= })"
}

# Every GPU test program, scaled down where it matters: every tool slows
# kernels by 10-100x.  fork_child's child uses no GPU by design; its parent
# does, and the tool follows both.
racecheck_kernels=tsm2_s_w16,tsm2_c_w8,tsm2_z_w4,ism2_s_w8,ism2_d_w16,ism2_z_w4,tsmttsm_s_tn_w8,tsmttsm_d_nn_w2,tsmttsm_c_tn_w16,tsmttsm_z_tn_w4
for tool in "$@"; do
  min_long=512
  check "$tool" test_kernels
  # racecheck: the double-precision routine only (every class and layout).
  if [ "$tool" = racecheck ]; then
    export TS_DIFF_PRECISIONS=d
  fi
  check "$tool" gemm_differential
  unset TS_DIFF_PRECISIONS
  check "$tool" residency_gpu
  min_long=256
  check "$tool" threads_stress_cuda 4 1
  check "$tool" exit_paths
  check "$tool" fork_child gpu
  min_long=64
  check "$tool" nan_inf
done
tap_end
