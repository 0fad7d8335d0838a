#!/bin/sh
# Installs the Debian packages tsshim's build, demo and tests need, only those
# missing.  The CUDA toolkit is optional (without it every call is forwarded)
# and is not installed here.  libopenblas64-0-pthread and python3-numpy serve
# the ILP64 and NumPy tests (tests/ilp64.sh, tests/numpy.sh); libopenmpi-dev
# and libscalapack-openmpi-dev build bench/scalapack/cholqr.
set -e
packages="build-essential autoconf automake libtool pkg-config gfortran libopenblas-dev dpkg-dev binutils liblapack-test python3 scalapack-mpi-test openmpi-bin libopenmpi-dev libscalapack-openmpi-dev libopenblas64-0-pthread python3-numpy"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null; then
  sudo=sudo
else
  echo "install-deps: missing packages:$missing (run as root or install sudo)" >&2
  exit 1
fi
echo "install-deps: installing$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
