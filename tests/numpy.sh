#!/bin/sh
# NumPy under the shim: matmul (?gemm), a.T @ a (?syrk) and solve give
# NumPy's results, and the exit report shows the calls intercepted, by
# their LP64 CBLAS names (Debian's NumPy, the system libblas) or the ILP64
# ones of the OpenBLAS that PyPI's NumPy bundles (scipy_cblas_dgemm64_).
# The interpreter: $PYTHON, else the first of python3 and /usr/bin/python3
# that imports NumPy, else the tests' virtual environment (python_venv).
. "$abs_top_srcdir/tests/tap-functions.sh"
. "$abs_top_srcdir/tests/tap-programs.sh"
python=""
for p in ${PYTHON:-python3 /usr/bin/python3}; do
  if "$p" -c "import numpy" >/dev/null 2>&1; then
    python=$p
    break
  fi
done
# Else the tests' virtual environment, NumPy and SciPy from PyPI (shared with tests/scipy.sh).
[ -n "$python" ] || python=$(python_venv) ||
  tap_skip_all "NumPy is not installed (tried: ${PYTHON:-python3 /usr/bin/python3}; $python)"
script=$abs_top_srcdir/tests/numpy_client.py

"$python" "$script" >"$tap_tmp/plain" 2>&1
tap_check $? "without the shim: $(cat "$tap_tmp/plain")"

# calls NAME_REGEX FILE: the calls the exit report counts for the names.
calls() { awk -v re="^$1\$" '$1 == "tsshim:" && $2 ~ re && $3 ~ /^calls=/ { sub("calls=", "", $3); s += $3 } END { print s + 0 }' "$2"; }

for mode in cpu auto; do
  TSSHIM_MODE=$mode TSSHIM_VERBOSE=1 LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  gemm=$(calls '(scipy_)?cblas_dgemm(64_)?' "$tap_tmp/err")
  syrk=$(calls '(scipy_)?cblas_dsyrk(64_)?' "$tap_tmp/err")
  [ $status -eq 0 ] && grep -q "^ok" "$tap_tmp/out" && [ "$gemm" -gt 0 ] && [ "$syrk" -gt 0 ]
  tap_check $? "mode $mode: $(head -1 "$tap_tmp/out"); intercepted: $gemm dgemm, $syrk dsyrk calls"
done

# Forced to the GPU: the products run there.
if have_gpu; then
  TSSHIM_MODE=gpu TSSHIM_VERBOSE=1 LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
  status=$?
  offloaded=$(awk '$1 == "tsshim:" && $2 ~ /^(scipy_)?cblas_d(gemm|syrk)(64_)?$/ { sub("offloaded=", "", $4); s += $4 } END { print s + 0 }' "$tap_tmp/err")
  [ $status -eq 0 ] && grep -q "^ok" "$tap_tmp/out" && [ "$offloaded" -ge 2 ]
  tap_check $? "mode gpu: $(head -1 "$tap_tmp/out"); $offloaded dgemm and dsyrk calls offloaded"
else
  tap_skip_point "mode gpu: no CUDA device"
fi

# Silent (the forwarding gate armed): NumPy's results, nothing on stderr.
LD_PRELOAD=$TSSHIM_PRELOAD "$python" "$script" >"$tap_tmp/out" 2>"$tap_tmp/err"
[ $? -eq 0 ] && grep -q "^ok" "$tap_tmp/out" && [ ! -s "$tap_tmp/err" ]
tap_check $? "auto mode, silent: NumPy's results, nothing on stderr"
tap_end
