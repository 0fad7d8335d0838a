#!/bin/sh
# GEMM calls from another library's constructor and destructor, from main and
# from an atexit handler (exit_paths.c, libctor_client.c): every result
# correct, nothing printed by the shim, exit status 0, in cpu and gpu modes,
# and in auto mode with a profile that makes the CPU look slow, so that the
# constructor's call starts the GPU (or finds none) and the program exits
# with it started.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/exit_paths
if have_gpu; then gpu_label="mode gpu"; else gpu_label="mode gpu (no CUDA device: CPU path)"; fi

slow_cpu=$tap_tmp/slow-cpu.profile
for cls in tsm2 ism2 tsmttsm rankk regular; do
  printf 'cpu_gbs.%s 1e-6\ncpu_gflops.%s 1e-6\n' $cls $cls
done >"$slow_cpu"

for mode in cpu gpu auto; do
  label="mode $mode"
  [ $mode != gpu ] || label=$gpu_label
  [ $mode != auto ] || label="mode auto, GPU started by the model"
  LD_PRELOAD="$TSSHIM_PRELOAD" TSSHIM_MODE=$mode TSSHIM_MIN_LONG=256 TSSHIM_MIN_FLOPS=0 TSSHIM_PROFILE="$slow_cpu" \
    "$prog" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  sed 's/^/# /' "$tap_tmp/out" "$tap_tmp/err"
  for where in constructor main atexit destructor; do
    for routine in dgemm_ zgemm_; do
      grep -q "^$where $routine ok " "$tap_tmp/out"
      tap_check $? "$label: $routine called from the $where matches OpenBLAS"
    done
  done
  [ $status -eq 0 ] && [ ! -s "$tap_tmp/err" ]
  tap_check $? "$label: exit status 0 (got $status), nothing on stderr"
done
tap_end
