#!/bin/sh
# The ILP64 names under the shim: results equal to the LP64 routines', the
# calls intercepted (exit report), the library that serves them named in
# the log, a provider opened with dlopen(RTLD_LOCAL) after start found, no
# provider reported (status 127), bad arguments reported by the provider's
# own xerbla, as without the shim.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
linked=$abs_top_builddir/tests/ilp64_client
late=$abs_top_builddir/tests/ilp64_client_dlopen
provider=$abs_top_builddir/tests/.libs/libilp64_provider.so

"$linked" check >"$tap_tmp/plain" 2>&1
case $? in
  0) ;;
  77)
    reason=$(cat "$tap_tmp/plain")
    case $reason in *"no ILP64 BLAS"*) reason="$reason; on Debian: apt-get install libopenblas64-0-pthread" ;; esac
    tap_skip_all "$reason" ;;
  *) cat "$tap_tmp/plain"; tap_check 1 "the client agrees with the LP64 BLAS without the shim"; tap_end; exit 1 ;;
esac

# The names the client calls, once each.
names=""
for p in "" scipy_; do
  for r in dgemm zgemm dsyrk zsyrk zherk dtrsm ztrsm dsymm zsymm zhemm dtrmm ztrmm dsyr2k zsyr2k zher2k; do
    names="$names ${p}${r}_64_ ${p}cblas_${r}64_"
  done
done

gpu=no
have_gpu && gpu=yes
for mode in cpu auto gpu; do
  TSSHIM_MODE=$mode TSSHIM_VERBOSE=1 LD_PRELOAD=$TSSHIM_PRELOAD "$linked" check >"$tap_tmp/out" 2>"$tap_tmp/err"
  [ $? -eq 0 ] && grep -qx ok "$tap_tmp/out" && report_counts "$tap_tmp/err" $mode >"$tap_tmp/why"
  tap_check $? "mode $mode: 60 ILP64 routines agree with the LP64 BLAS, each call intercepted$( [ $mode = gpu ] && [ $gpu = yes ] && echo ' and offloaded') $(cat "$tap_tmp/why")"
done

# Silent, with the forwarding gate armed: the entry points' fast path.
LD_PRELOAD=$TSSHIM_PRELOAD "$linked" check >"$tap_tmp/out" 2>"$tap_tmp/err"
[ $? -eq 0 ] && grep -qx ok "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
tap_check $? "auto mode, silent: the same results through the forwarding gate, nothing on stderr"

# The library serving each routine is named once, at TSSHIM_VERBOSE=2.
TSSHIM_VERBOSE=2 LD_PRELOAD=$TSSHIM_PRELOAD "$linked" check >"$tap_tmp/out" 2>"$tap_tmp/err"
[ "$(grep -c "tsshim: scipy_cblas_dsyrk64_ served by .*libilp64_provider.so" "$tap_tmp/err")" -eq 1 ]
tap_check $? "TSSHIM_VERBOSE=2 names the library serving scipy_cblas_dsyrk64_, once"

# The provider opened with dlopen(RTLD_LOCAL) after start, as NumPy does.
TSSHIM_VERBOSE=2 LD_PRELOAD=$TSSHIM_PRELOAD "$late" check "$provider" >"$tap_tmp/out" 2>"$tap_tmp/err"
[ $? -eq 0 ] && grep -qx ok "$tap_tmp/out" && grep -q "tsshim: dgemm_64_ served by $provider" "$tap_tmp/err" &&
  report_counts "$tap_tmp/err" auto >"$tap_tmp/why"
tap_check $? "a provider opened with dlopen(RTLD_LOCAL) after start serves the ILP64 names $(cat "$tap_tmp/why")"

# No provider at all: one line, status 127, as for the LP64 names.
LD_PRELOAD=$TSSHIM_PRELOAD "$late" none >"$tap_tmp/out" 2>"$tap_tmp/err"
status=$?
[ $status -eq 127 ] && [ "$(wc -l <"$tap_tmp/err")" -eq 1 ] && grep -q "no CPU BLAS provides dgemm_64_" "$tap_tmp/err" &&
  [ ! -s "$tap_tmp/out" ]
tap_check $? "no provider of dgemm_64_: one line and status 127 (got $status: $(cat "$tap_tmp/err"))"

# Bad arguments (8: m above 2^32 with lda = 1) reach the provider's xerbla.
for arg in 1 3 8; do
  tap_same_as_plain "$arg" "dgemm_64_ bad argument $arg (the provider's xerbla)" "$linked" bad $arg
done
tap_end
