#!/bin/sh
# Invalid arguments to SYRK, HERK, TRSM, SYMM, HEMM, TRMM, SYR2K and HER2K
# (Fortran and CBLAS) reach the CPU
# BLAS's own xerbla or cblas_xerbla: output and exit status are those of the
# program without the shim, in every mode.  (OpenBLAS's CBLAS reports the
# Fortran routine's parameter numbers: the report is only required to name a
# parameter.)
. "$abs_top_srcdir/tests/tap-functions.sh"
client=$abs_top_builddir/tests/level3_client

check() { # routine positions...
  routine=$1
  shift
  for arg in "$@"; do
    tap_same_as_plain parameter "$routine bad argument $arg" "$client" "$routine" "$arg"
    # Where no GPU is usable every call is forwarded anyway: the trace tells
    # whether the shim itself saw the argument as invalid.
    rm -f "$tap_tmp/trace"
    LD_PRELOAD=$TSSHIM_PRELOAD TSSHIM_MODE=gpu TSSHIM_VERBOSE=3 TSSHIM_LOG="$tap_tmp/trace" "$client" "$routine" "$arg" \
      >/dev/null 2>&1
    grep -q 'run=cpu (invalid arguments)' "$tap_tmp/trace"
    tap_check $? "$routine bad argument $arg: the shim's trace says invalid arguments"
  done
}

check dsyrk_ 1 2 3 4 7 10
check zherk_ 1 2 3 4 7 10
check ctrsm_ 1 2 3 4 5 6 9 11
check cblas_dsyrk 1 2 3 4 5 8 11
check cblas_zherk 1 2 3 4 5 8 11
check cblas_ctrsm 1 2 3 4 5 6 7 10 12
check dsymm_ 1 2 3 4 7 9 12
check zhemm_ 1 2 3 4 7 9 12
check ztrmm_ 1 2 3 4 5 6 9 11
check dsyr2k_ 1 2 3 4 7 9 12
check zher2k_ 1 2 3 4 7 9 12
check cblas_dsymm 1 2 3 4 5 8 10 13
check cblas_strmm 1 2 3 4 5 6 7 10 12
check cblas_zher2k 1 2 3 4 5 8 10 13
tap_end
