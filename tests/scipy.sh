#!/bin/sh
# SciPy under the shim: scipy.linalg.blas's ?gemm, ?syrk, ?herk and ?trsm
# give results that agree with NumPy-computed references, and the exit
# report shows the calls intercepted under SciPy's own LP64 names
# (scipy_dgemm_, ...: its wheels' bundled OpenBLAS, which SciPy opens with
# dlopen(RTLD_LOCAL)).  NumPy and SciPy come from PyPI into the tests'
# virtual environment (python_venv); skipped where pip cannot reach PyPI.
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
python=$(python_venv) || tap_skip_all "$python"
script=$abs_top_srcdir/tests/scipy_client.py

"$python" "$script" >"$tap_tmp/plain" 2>&1
tap_check $? "without the shim: $(cat "$tap_tmp/plain")"

# The routines the client calls, each at least once under its scipy_ name.
names="scipy_sgemm_ scipy_dgemm_ scipy_cgemm_ scipy_zgemm_ scipy_ssyrk_ scipy_dsyrk_ scipy_csyrk_ scipy_zsyrk_
scipy_cherk_ scipy_zherk_ scipy_strsm_ scipy_dtrsm_ scipy_ctrsm_ scipy_ztrsm_"
seen() { # FILE: prints the first name the report does not count
  for name in $names; do
    grep -q "^tsshim: $name calls=[1-9]" "$1" || { echo "$name not in the exit report"; return 1; }
  done
}

modes="cpu auto"
have_gpu && modes="$modes gpu"
for mode in $modes; do
  TSSHIM_MODE=$mode TSSHIM_VERBOSE=1 LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
  [ $? -eq 0 ] && grep -q "^ok" "$tap_tmp/out" && seen "$tap_tmp/err" >"$tap_tmp/why"
  tap_check $? "mode $mode: $(head -1 "$tap_tmp/out"); 14 scipy_ routines intercepted $(cat "$tap_tmp/why")"
done
have_gpu || tap_skip_point "mode gpu: no CUDA device"

# SciPy's own OpenBLAS serves its names, and the log says whether its
# definitions are protected (its LAPACK then never reaches the shim).
TSSHIM_VERBOSE=2 LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
line=$(grep "^tsshim: scipy_dgemm_ served by .*scipy_openblas" "$tap_tmp/err")
tap_check $? "TSSHIM_VERBOSE=2: SciPy's bundled OpenBLAS serves scipy_dgemm_, $(case $line in *protected*) echo protected ;; *) echo 'default visibility' ;; esac)"

# Silent (the forwarding gate armed): SciPy's results, nothing on stderr.
LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
[ $? -eq 0 ] && grep -q "^ok" "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
tap_check $? "auto mode, silent: SciPy's results, nothing on stderr"
tap_end
