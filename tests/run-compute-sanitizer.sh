#!/bin/sh
# compute-sanitizer over the GPU test programs, on a host with a CUDA device:
# one TAP point per tool and program, ok when the tool reports 0 errors and
# the program itself passes.  Run it from a build directory configured
# without --enable-sanitizers (ASan and compute-sanitizer do not mix), e.g.
# "make check-compute-sanitizer", or directly:
#   tests/run-compute-sanitizer.sh [TOOL...]   (default: memcheck racecheck synccheck)
# COMPUTE_SANITIZER names the binary (default: from PATH, else /usr/local/cuda/bin).
: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TSSHIM_LIB:=$abs_top_builddir/.libs/libtsshim.so}"
: "${TSSHIM_PRELOAD:=$TSSHIM_LIB}"
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
bin=$abs_top_builddir/tests

sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || tap_skip_all "compute-sanitizer not found (set COMPUTE_SANITIZER)"
have_gpu || tap_skip_all "no CUDA device"
[ $# -gt 0 ] || set -- memcheck racecheck synccheck

# check TOOL PROGRAM [ARG...]: one point.  PROGRAM (in tests/) runs under
# the shim in gpu mode with TSSHIM_MIN_LONG=$min_long, except test_kernels,
# which calls the kernels itself.  The report goes to a log file so that the
# program's own TAP stays apart.
check() {
  tool=$1
  prog=$2
  shift 2
  args=$*
  if [ ! -x "$bin/$prog" ]; then
    tap_skip_point "$tool: $prog not built"
    return
  fi
  if [ "$prog" = test_kernels ]; then
    set -- "$bin/$prog" "$@"
  else
    set -- env LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=gpu TSSHIM_MIN_LONG=$min_long "$bin/$prog" "$@"
  fi
  log=$tap_tmp/$tool.log
  "$sanitizer" --tool "$tool" --error-exitcode 86 --target-processes all --log-file "$log" "$@" \
    >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  summary=$(grep 'ERROR SUMMARY' "$log" 2>/dev/null | tail -n 1)
  [ $status -eq 0 ] && echo "$summary" | grep -q ' 0 errors' && ! grep -q '^not ok\| FAIL ' "$tap_tmp/out"
  result=$?
  if [ $result -ne 0 ]; then
    head -n 40 "$log" 2>/dev/null | sed 's/^/# /'
    grep '^not ok\| FAIL \|^Bail out' "$tap_tmp/out" | head -n 10 | sed 's/^/# /'
  fi
  tap_check $result "$tool: $prog${args:+ $args} (status $status; ${summary#========= })"
}

# Scaled down where it matters: every tool slows kernels by 10-100x.
# fork_child is left out: by design its child uses no GPU.
for tool in "$@"; do
  min_long=512
  check "$tool" test_kernels
  check "$tool" gemm_differential
  min_long=256
  check "$tool" threads_stress_cuda 4 1
  check "$tool" exit_paths
  min_long=64
  check "$tool" nan_inf
done
tap_end
