#!/bin/sh
# The Python package's launcher (python/tsshim_launcher.py: the tsshim
# console script, python -m tsshim) with plain python3, no package installed
# and no NumPy: the GLIBC_TUNABLES its program sees, the same cases as
# tools/tsshim's (tests/launcher.sh), through main() and python_main().
. "$abs_top_srcdir/tests/tap-functions.sh"
python=${PYTHON:-python3}
"$python" -c '' >/dev/null 2>&1 || tap_skip_all "no $python"
# Sanitizer builds: the launcher puts the shim before the ASan runtime.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"; export ASAN_OPTIONS

# The launcher beside a package folder holding this build's library, as pip
# installs them.
pkg=$tap_tmp/pkg
mkdir -p "$pkg/tsshim/lib"
cp "$abs_top_srcdir/python/tsshim_launcher.py" "$pkg/"
ln -s "$(cd "$(dirname "$TSSHIM_LIB")" && pwd)/libtsshim.so" "$pkg/tsshim/lib/libtsshim.so"
run='import sys; sys.path.insert(0, sys.argv.pop(1)); import tsshim_launcher; tsshim_launcher.'

tap_huge_pages "$python" -B -c "${run}main()" "$pkg"

env -u GLIBC_TUNABLES -u TSSHIM_HUGE_PAGES "$python" -B -c "${run}python_main()" "$pkg" \
  -c 'import os; print(os.environ.get("GLIBC_TUNABLES"))' >"$tap_tmp/out" 2>"$tap_tmp/err"
[ "$(cat "$tap_tmp/out")" = glibc.malloc.hugetlb=1 ]
tap_check $? "python -m tsshim: the script sees GLIBC_TUNABLES glibc.malloc.hugetlb=1 (got: $(cat "$tap_tmp/out"))"
tap_end
