#!/bin/sh
# The Python package (pyproject.toml, setup.py, python/tsshim): built with
# the project's own build and installed into a virtual environment with
# NumPy and SciPy from PyPI; `import tsshim` first and `python -m tsshim`
# each make NumPy's products reach the shim (counted by tsshim.report(), cpu
# mode), importing it after NumPy warns, and the console script runs.
# The environment is kept in tests/python-venv of the build tree and reused
# (TSSHIM_TEST_VENV names another); pip that cannot reach PyPI skips all.
. "$abs_top_srcdir/tests/tap-functions.sh"
case $TSSHIM_PRELOAD in *asan* | *ubsan*) tap_skip_all "sanitizer build: the shim needs the sanitizer runtime preloaded first" ;; esac
python=${PYTHON:-python3}
"$python" -c "import venv, ensurepip" >/dev/null 2>&1 || tap_skip_all "$python has no venv and ensurepip (Debian: apt-get install python3-venv)"
venv=${TSSHIM_TEST_VENV:-$abs_top_builddir/tests/python-venv}
vpy=$venv/bin/python
# make check's jobserver is not the nested make's (setup.py runs make).
unset MAKEFLAGS MFLAGS MAKELEVEL

if ! "$vpy" -c "import numpy, scipy, setuptools, wheel" >/dev/null 2>&1; then
  rm -rf "$venv"
  "$python" -m venv "$venv" >"$tap_tmp/venv.log" 2>&1 || tap_skip_all "cannot create a venv: $(tail -1 "$tap_tmp/venv.log")"
  if ! timeout 900 "$vpy" -m pip install --quiet --disable-pip-version-check numpy scipy "setuptools>=61" wheel \
    >"$tap_tmp/pip.log" 2>&1; then
    rm -rf "$venv"
    tap_skip_all "pip cannot install numpy and scipy from PyPI: $(grep -v '^ *$' "$tap_tmp/pip.log" | tail -1)"
  fi
fi

# The package from a copy of its files, built against this build tree
# (TSSHIM_BUILD_DIR: make runs here, the tree stays untouched).
mkdir "$tap_tmp/pkg"
cp "$abs_top_srcdir/pyproject.toml" "$abs_top_srcdir/setup.py" "$abs_top_srcdir/README.md" "$tap_tmp/pkg/"
mkdir "$tap_tmp/pkg/python"
cp -R "$abs_top_srcdir/python/tsshim" "$abs_top_srcdir/python/tsshim_launcher.py" "$tap_tmp/pkg/python/"
rm -rf "$tap_tmp/pkg/python/tsshim/lib" "$tap_tmp/pkg/python/tsshim/bin" "$tap_tmp/pkg/python/tsshim/__pycache__"
chmod -R u+w "$tap_tmp/pkg"
TSSHIM_BUILD_DIR=$abs_top_builddir timeout 900 "$vpy" -m pip install --no-build-isolation --no-deps --force-reinstall \
  --disable-pip-version-check "$tap_tmp/pkg" >"$tap_tmp/install.log" 2>&1
status=$?
[ $status -ne 0 ] && sed 's/^/# /' "$tap_tmp/install.log" | tail -30
pkgdir=$("$vpy" -c "import importlib.util as u; import os; print(os.path.dirname(u.find_spec('tsshim').origin))" 2>/dev/null)
[ $status -eq 0 ] && [ -f "$pkgdir/lib/libtsshim.so" ] && [ -x "$pkgdir/bin/tsshim-doctor" ]
tap_check $? "pip install: the package ships libtsshim.so and tsshim-doctor (in ${pkgdir:-nowhere})"
[ -n "$pkgdir" ] || { tap_end; exit 1; }

client=$abs_top_srcdir/tests/python_client.py
field() { sed -n "s/^$1=//p" "$2"; }

TSSHIM_MODE=cpu "$vpy" "$client" first >"$tap_tmp/first" 2>"$tap_tmp/first.err"
status=$?
n=$(field gemm_calls "$tap_tmp/first")
[ $status -eq 0 ] && grep -q '^ok$' "$tap_tmp/first" && [ "${n:-0}" -gt 0 ] && [ -z "$(field warning "$tap_tmp/first")" ] &&
  [ "$(field mode "$tap_tmp/first")" = cpu ] && [ "$(field counting "$tap_tmp/first")" = True ]
tap_check $? "import tsshim first: NumPy's products reach the shim ($n counted: $(field routines "$tap_tmp/first")), no warning"

TSSHIM_MODE=cpu "$vpy" -m tsshim "$client" after >"$tap_tmp/m" 2>"$tap_tmp/m.err"
status=$?
n=$(field gemm_calls "$tap_tmp/m")
[ $status -eq 0 ] && grep -q '^ok$' "$tap_tmp/m" && [ "${n:-0}" -gt 0 ] && [ -z "$(field warning "$tap_tmp/m")" ] &&
  [ "$(field library "$tap_tmp/m")" = "$pkgdir/lib/libtsshim.so" ]
tap_check $? "python -m tsshim script.py: preloaded, NumPy imported first still seen ($n counted: $(field routines "$tap_tmp/m"))"

"$vpy" -m tsshim --mode gpu "$client" first >"$tap_tmp/mode" 2>/dev/null
[ "$(field mode "$tap_tmp/mode")" = gpu ] && grep -q '^ok$' "$tap_tmp/mode"
tap_check $? "python -m tsshim --mode gpu: tsshim.settings() says gpu, results right ($(field mode "$tap_tmp/mode"))"

"$vpy" -c "import numpy, tsshim" >"$tap_tmp/late" 2>"$tap_tmp/late.err"
status=$?
[ $status -eq 0 ] && grep -q "NumPy's calls will not be seen" "$tap_tmp/late.err" && grep -q 'python -m tsshim' "$tap_tmp/late.err"
tap_check $? "import tsshim after numpy warns: $(grep -m1 Warning "$tap_tmp/late.err")"

"$vpy" -m tsshim -c 'import sys; sys.exit(3)'
status=$?
[ $status -eq 3 ]
tap_check $? "python -m tsshim passes the exit status through (3: got $status)"

"$venv/bin/tsshim" --version >"$tap_tmp/v" 2>&1 && grep -q '^tsshim [0-9]' "$tap_tmp/v"
tap_check $? "the console script: $(cat "$tap_tmp/v")"

TSSHIM_MODE=cpu "$venv/bin/tsshim" --report "$vpy" -c 'import numpy as np; a = np.ones((300, 300)); print((a @ a)[0, 0])' \
  >"$tap_tmp/cs" 2>"$tap_tmp/cs.err"
status=$?
[ $status -eq 0 ] && grep -q '^300.0$' "$tap_tmp/cs" && grep -q '^tsshim: .*dgemm.* calls=[1-9]' "$tap_tmp/cs.err"
tap_check $? "the console script runs python under the shim: $(grep -m1 'dgemm' "$tap_tmp/cs.err")"

# The console script must not import the package (whose import sets
# TSSHIM_COUNT, which disarms the forwarding gate of the program it runs).
env -u TSSHIM_COUNT "$venv/bin/tsshim" sh -c 'echo "${TSSHIM_COUNT-unset}"' >"$tap_tmp/count" 2>&1
[ "$(cat "$tap_tmp/count")" = unset ]
tap_check $? "the console script leaves TSSHIM_COUNT alone (the program saw: $(cat "$tap_tmp/count"))"

"$venv/bin/tsshim" doctor >"$tap_tmp/doctor" 2>&1
status=$?
grep -q '^verdict' "$tap_tmp/doctor" && grep -q "^library *$pkgdir/lib/libtsshim.so present" "$tap_tmp/doctor" &&
  { [ $status -eq 0 ] || [ $status -eq 1 ]; }
tap_check $? "tsshim doctor from the package: $(grep '^verdict' "$tap_tmp/doctor") (status $status)"
tap_end
