#!/bin/sh
# SciPy's LP64 names (scipy_dgemm_, scipy_cblas_dgemm, ...) under the shim,
# served by a library the program opens with dlopen(RTLD_LOCAL) after start,
# as SciPy opens its bundled OpenBLAS: results bit for bit OpenBLAS's (in
# gpu mode, where the GPU computes them, within rounding), every call
# intercepted (exit report), the serving library named in the log.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
client=$abs_top_builddir/tests/scipy_lp64_client
provider=$abs_top_builddir/tests/.libs/libscipy_provider.so

"$client" "$provider" >"$tap_tmp/plain" 2>&1
case $? in
  0) ;;
  77) tap_skip_all "$(cat "$tap_tmp/plain")" ;;
  *) cat "$tap_tmp/plain"; tap_check 1 "the client agrees with OpenBLAS without the shim"; tap_end; exit 1 ;;
esac

names=""
for r in sgemm dgemm cgemm zgemm ssyrk dsyrk csyrk zsyrk cherk zherk strsm dtrsm ctrsm ztrsm \
  ssymm dsymm csymm zsymm chemm zhemm strmm dtrmm ctrmm ztrmm ssyr2k dsyr2k csyr2k zsyr2k cher2k zher2k; do
  names="$names scipy_${r}_ scipy_cblas_${r}"
done

gpu=no
have_gpu && gpu=yes
for mode in cpu auto gpu; do
  TSSHIM_MODE=$mode TSSHIM_VERBOSE=1 LD_PRELOAD=$TSSHIM_PRELOAD "$client" "$provider" >"$tap_tmp/out" 2>"$tap_tmp/err"
  [ $? -eq 0 ] && grep -qx ok "$tap_tmp/out" && report_counts "$tap_tmp/err" $mode >"$tap_tmp/why"
  tap_check $? "mode $mode: 60 scipy_ routines $( [ $mode = gpu ] && echo 'within rounding of' || echo 'bit for bit') OpenBLAS's, each call intercepted$( [ $mode = gpu ] && [ $gpu = yes ] && echo ' and offloaded') $(cat "$tap_tmp/out" "$tap_tmp/why" | grep -vx ok)"
done

# Silent, with the forwarding gate armed: the entry points' fast path.
LD_PRELOAD=$TSSHIM_PRELOAD "$client" "$provider" >"$tap_tmp/out" 2>"$tap_tmp/err"
[ $? -eq 0 ] && grep -qx ok "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
tap_check $? "auto mode, silent: the same results through the forwarding gate, nothing on stderr"

# The library serving each routine is named once, at TSSHIM_VERBOSE=2: the
# one opened with RTLD_LOCAL.
TSSHIM_VERBOSE=2 LD_PRELOAD=$TSSHIM_PRELOAD "$client" "$provider" >"$tap_tmp/out" 2>"$tap_tmp/err"
[ "$(grep -c "tsshim: scipy_cblas_dsyrk served by $provider" "$tap_tmp/err")" -eq 1 ] &&
  [ "$(grep -c "tsshim: scipy_dgemm_ served by $provider" "$tap_tmp/err")" -eq 1 ]
tap_check $? "TSSHIM_VERBOSE=2 names the RTLD_LOCAL library serving scipy_dgemm_ and scipy_cblas_dsyrk, once each"
tap_end
