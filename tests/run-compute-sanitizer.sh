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
# CS_PROGRAMS, where set, names the programs to run (others are left out).
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
  if [ -n "${CS_PROGRAMS:-}" ] && ! printf ' %s ' "$CS_PROGRAMS" | grep -q " $prog "; then
    return
  fi
  if [ ! -x "$bin/$prog" ]; then
    tap_skip_point "$tool: $prog not built"
    return
  fi
  case $prog in
    test_kernels)
      # racecheck is far slower than the other tools: one instance per class,
      # precision and thread mapping covers every shared-memory pattern.  No
      # tool reruns the kernels with tuning parameters (TSK_TEST_PARAMS=0):
      # the same kernels, and the time the other programs need.
      if [ "$tool" = racecheck ]; then
        set -- env TSK_TEST_PARAMS=0 TSK_TEST_ONLY="$racecheck_kernels" "$bin/$prog" "$@"
      else
        set -- env TSK_TEST_PARAMS=0 "$bin/$prog" "$@"
      fi
      ;;
    fork_child)
      # The child leaves through _exit(): the tool hangs a CUDA process whose
      # forked child calls exit(), with or without tsshim (a plain CUDA
      # program that forks shows it).
      rm -f "$tap_tmp"/trace.*
      set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long TSSHIM_VERBOSE=3 \
        TSSHIM_LOG="$tap_tmp/trace.%p" TS_CHILD_QUICK_EXIT=1 "$bin/$prog" "$@"
      ;;
    exit_paths)
      # The tool cannot attach once CUDA has started before main, so the
      # other library's constructor makes no call here (exit_paths.sh covers
      # it without the tool); main, atexit and the destructor do.
      set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long TS_CTOR_NO_GEMM=1 \
        "$bin/$prog" "$@"
      ;;
    split_gemm)
      # Every call in two parts on device 0, run at once from two threads.
      set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long TSSHIM_SPLIT=1 \
        TSSHIM_SPLIT_DEVICES=0,0 TSSHIM_SPLIT_MIN_MS=0 "$bin/$prog" "$@"
      ;;
    *) set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long "$bin/$prog" "$@" ;;
  esac
  # One report per process (fork_child's child is followed too), joined.
  log=$tap_tmp/$tool.log
  rm -f "$log" "$log".*
  timeout "$CS_TIMEOUT" "$sanitizer" --tool "$tool" --error-exitcode 86 --target-processes all \
    --log-file "$log.%p" "$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  cat "$log".* >"$log" 2>/dev/null
  [ $status -ne 124 ] || echo "# $tool: $prog killed after $CS_TIMEOUT s"
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
# kernels by 10-100x, racecheck (which tracks every shared-memory access)
# most: it runs shapes eight times smaller, and the differential test in
# double precision only (every class and layout; 262 s on an H100).
racecheck_kernels=tsm2_s_w16,tsm2_c_w8,tsm2_z_w4,tsm2_d_w2,ism2_s_w8,ism2_d_w16,ism2_z_w4,tsmttsm_s_tn_w8,tsmttsm_d_nn_w2,tsmttsm_c_tn_w16,tsmttsm_z_tn_w4,ism2_dmma_d_w32,tsmttsm_dmma_s_w32,tsm2_dmma_s_w16,tsmttsm_dmma_s_w64,tsmttsm_dmma_d_w8
for tool in "$@"; do
  scale=1
  if [ "$tool" = racecheck ]; then
    scale=8
    export TS_DIFF_PRECISIONS=d
  fi
  min_long=$((512 / scale))
  check "$tool" test_kernels
  check "$tool" gemm_differential
  unset TS_DIFF_PRECISIONS
  check "$tool" residency_gpu
  min_long=$((256 / scale))
  check "$tool" threads_stress_cuda 4 1
  check "$tool" exit_paths
  check "$tool" fork_child gpu
  min_long=64
  check "$tool" nan_inf
  check "$tool" cache_mutations
  min_long=512
  check "$tool" level3_device
  check "$tool" split_gemm
done
tap_end
