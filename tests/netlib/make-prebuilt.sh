#!/bin/sh
# Builds the netlib level-3 BLAS testers sblat3 dblat3 cblat3 zblat3 into
# OUTDIR, next to their standard input files, linked against the shared
# system BLAS so that an LD_PRELOADed libtsshim.so intercepts their ?gemm_
# calls. OUTDIR can be carried to a host without a Fortran compiler and used
# there as TSSHIM_NETLIB_BIN.
# Usage: make-prebuilt.sh OUTDIR
# Environment:
#   TSSHIM_NETLIB_SRC  an unpacked lapack source tree, or a folder with the
#                      ?blat3.f and ?blat3.in files, or a folder to fetch
#                      them into (default: $TMPDIR/tsshim-netlib-src)
#   FC                 Fortran compiler (default gfortran; set but empty
#                      means there is none), FCFLAGS (default -O2),
#   BLAS_LIBS          how to link the BLAS (default -lblas)
# Exit 0 on success; 77 with a one-line reason on stdout when the sources or
# the compiler are missing; 1 when a build fails (compiler output on stderr).

out=$1
here=$(cd "$(dirname "$0")" && pwd)
testers='sblat3 dblat3 cblat3 zblat3'

skip() {
    echo "$*"
    exit 77
}

fc=${FC-gfortran}
[ -n "$fc" ] || skip "no Fortran compiler (FC is empty)"
set -- $fc
command -v "$1" >/dev/null 2>&1 || skip "no Fortran compiler ($1 not found)"

src=${TSSHIM_NETLIB_SRC:-${TMPDIR:-/tmp}/tsshim-netlib-src}
if [ -d "$src/BLAS/TESTING" ]; then
    src=$src/BLAS/TESTING
else
    reason=$(sh "$here/fetch-lapack-source.sh" "$src") ||
        skip "${reason:-fetching the lapack sources failed}"
fi

mkdir -p "$out" || exit 1
for t in $testers; do
    # Word splitting of the flags is intended: they are lists of options.
    $fc ${FCFLAGS--O2} -o "$out/$t" "$src/$t.f" ${BLAS_LIBS--lblas} || exit 1
    cp "$src/$t.in" "$out/" || exit 1
done
rm -f "$out/VERSION"
if [ -r "$src/VERSION" ]; then
    cp "$src/VERSION" "$out/" || exit 1
fi
