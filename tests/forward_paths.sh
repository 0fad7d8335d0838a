#!/bin/sh
# Finding the CPU BLAS: linked (RTLD_NEXT), loaded later with dlopen(RTLD_LOCAL)
# (found by walking the loaded objects), named by TSSHIM_CPU_BLAS, or absent
# (one line naming the fix, exit status 127).
. "$abs_top_srcdir/tests/tap-functions.sh"
nolink=$abs_top_builddir/tests/blas_client_nolink
[ -n "$OPENBLAS_LIB" ] || tap_skip_all "no OpenBLAS found by configure"

"$client" call >"$tap_tmp/plain" 2>&1
LD_PRELOAD=$TSSHIM_PRELOAD "$client" call >"$tap_tmp/out" 2>&1
cmp -s "$tap_tmp/plain" "$tap_tmp/out"
tap_check $? "linked BLAS found through RTLD_NEXT"

LD_PRELOAD=$TSSHIM_PRELOAD "$nolink" local "$OPENBLAS_LIB" >"$tap_tmp/out" 2>&1
cmp -s "$tap_tmp/plain" "$tap_tmp/out"
tap_check $? "BLAS loaded with dlopen(RTLD_LOCAL) found among the loaded objects"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_CPU_BLAS=$OPENBLAS_LIB "$nolink" call >"$tap_tmp/out" 2>&1
cmp -s "$tap_tmp/plain" "$tap_tmp/out"
tap_check $? "TSSHIM_CPU_BLAS names the BLAS to forward to"

LD_PRELOAD=$TSSHIM_PRELOAD "$nolink" call >"$tap_tmp/out" 2>&1
status=$?
[ $status -eq 127 ] && [ "$(wc -l <"$tap_tmp/out")" -eq 1 ] && grep -q 'TSSHIM_CPU_BLAS' "$tap_tmp/out"
tap_check $? "no BLAS at all: one line naming the fix, exit status 127 (got $status)"

LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_CPU_BLAS=/nonexistent/libblas.so "$client" call >"$tap_tmp/out" 2>&1
cmp -s "$tap_tmp/plain" "$tap_tmp/out"
tap_check $? "a wrong TSSHIM_CPU_BLAS falls back to the linked BLAS, silently"
tap_end
