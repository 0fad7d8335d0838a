#!/bin/sh
# Differential test of ?symm_, ?hemm_, ?trmm_, ?syr2k_, ?her2k_ and their
# CBLAS versions (both layouts) under the shim, against OpenBLAS called
# directly and the reference in C (tests/level3_products.c): in cpu and auto
# mode, where these small calls are forwarded (or answered by the shim's
# quick returns and C = beta C), and in gpu mode where a CUDA device is
# usable (cuBLAS computes them: within rounding; skinny SYR2K and HER2K also
# through the Gram route).  The exit report must
# count each routine's calls, none offloaded in cpu and auto mode, some and
# none fallen back in gpu mode; the trace must say where each call ran and
# why.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
prog=$abs_top_builddir/tests/level3_products

fortran='ssymm_ dsymm_ csymm_ zsymm_ chemm_ zhemm_ strmm_ dtrmm_ ctrmm_ ztrmm_ ssyr2k_ dsyr2k_ csyr2k_ zsyr2k_ cher2k_ zher2k_'
cblas=$(for r in $fortran; do printf 'cblas_%s ' "${r%_}"; done)

# Without the shim: the program against itself (OpenBLAS both sides).
tap_relay "without the shim fortran" env TS_L3_API=fortran "$prog"

run_mode() { # mode
  for api in fortran cblas; do
    tap_relay "mode $1 $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_FROM="$TSSHIM_LIB" TS_L3_API=$api \
      TSSHIM_MODE=$1 TSSHIM_VERBOSE=1 TSSHIM_LOG="$tap_tmp/shim.$1.$api" "$prog"
    eval "routines=\$$api"
    check_level3_report "$tap_tmp/shim.$1.$api" $1 $routines
  done
}
run_mode cpu
run_mode auto
gpu=no
if have_gpu; then
  gpu=yes
  run_mode gpu
else
  tap_skip_point "mode gpu: no CUDA device"
fi

# Skinny SYR2K and HER2K (n skinny, k long: TSSHIM_MIN_LONG=2 makes most
# of these shapes so) in gpu mode: one Gram GEMM on the GPU and the triangle
# updated on the host; SYMM and HEMM with a skinny symmetric side: the GEMM
# of B with A's full matrix.  Within rounding of the reference.
if [ $gpu = yes ]; then
  for api in fortran cblas; do
    tap_relay "mode gpu, TSSHIM_MIN_LONG=2, $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_EXPECT_FROM="$TSSHIM_LIB" \
      TS_L3_API=$api TSSHIM_MODE=gpu TSSHIM_MIN_LONG=2 TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/gram.$api" "$prog"
    n=$(grep -E -c '^tsshim: [a-z_]*(syr2k|her2k)_? .* class=tsmttsm .* path=gram' "$tap_tmp/gram.$api")
    s=$(grep -E -c '^tsshim: [a-z_]*(symm|hemm)_? .* class=ism2.* path=symm' "$tap_tmp/gram.$api")
    [ "${n:-0}" -gt 0 ] && [ "${s:-0}" -gt 0 ] && ! grep -q 'GPU failed' "$tap_tmp/gram.$api"
    tap_check $? "mode gpu, TSSHIM_MIN_LONG=2, $api: skinny SYR2K and HER2K take the Gram route ($n trace lines)," \
      "SYMM and HEMM the GEMM route ($s)"
  done
else
  tap_skip_point "mode gpu, TSSHIM_MIN_LONG=2: no CUDA device"
fi

# Silent, the forwarding gate armed: the entry points' fast path (assembly on x86-64).
for api in fortran cblas; do
  tap_relay "auto mode, silent, $api" env LD_PRELOAD="$TSSHIM_PRELOAD" TS_L3_API=$api "$prog"
done

# The trace: auto mode keeps these small calls on the CPU (below
# TSSHIM_MIN_FLOPS); gpu mode sends them to the GPU, where cuBLAS runs them
# (without a device: the GPU side finds none and forwards them).
for mode in auto gpu; do
  env LD_PRELOAD="$TSSHIM_PRELOAD" TS_L3_API=fortran TSSHIM_MODE=$mode TSSHIM_VERBOSE=3 \
    TSSHIM_LOG="$tap_tmp/trace.$mode" "$prog" >/dev/null 2>&1
  case $mode:$gpu in
    auto:*) want='run=cpu (below TSSHIM_MIN_FLOPS) path=-' ;;
    gpu:yes) want='run=gpu (mode gpu) path=cublas' ;;
    gpu:no) want='run=cpu (no usable GPU) path=-' ;;
  esac
  for r in dsymm_ zhemm_ dtrmm_ dsyr2k_ zher2k_; do
    n=$(grep -c "^tsshim: $r .* class=" "$tap_tmp/trace.$mode")
    n_want=$(grep "^tsshim: $r .* class=" "$tap_tmp/trace.$mode" | grep -cF "$want")
    ! grep -q 'no GPU path' "$tap_tmp/trace.$mode" && [ "${n_want:-0}" -gt 0 ]
    tap_check $? "mode $mode: the trace shows $r calls with '$want' ($n_want of $n lines)"
  done
done
tap_end
